//! A JSON value as compact bytes that read back into the same value (keys in the same order, the same strings and
//! numbers): the form a streamed document waits in until the rules check its group. Reading it back skips what
//! reading JSON text costs (tokens, escapes, number parsing), about half of it.
//!
//! The bytes are the length of the structure (LEB128 varint), the structure, then the text of every string, keys
//! and values, one after the other (UTF-8, checked once when read, not string by string). In the structure a value
//! is a tag byte and its body: `0` null, `1` false, `2` true, `3` a non-negative integer (varint), `4` a negative
//! integer (8 bytes, little-endian), `5` a float (the 8 bytes of the `f64`, little-endian), `6` a string (the varint
//! length of its text), `7` an array (varint count, then the items), `8` an object (varint count, then per entry the
//! key's varint length and the value). Two values are written to the same bytes exactly when their compact JSON
//! texts are the same.

use serde_json::{Map, Number, Value};

// The tags of the embedded schema trees.
use crate::schema::packed::{ARRAY, FALSE, FLOAT, NEGATIVE, NULL, OBJECT, STRING, TRUE, UNSIGNED};

/// `value` as packed bytes.
pub(super) fn pack(value: &Value) -> Box<[u8]> {
    let mut packed = Packed { structure: Vec::with_capacity(64), text: Vec::with_capacity(256) };
    packed.write(value);
    let mut out = Vec::with_capacity(packed.structure.len() + packed.text.len() + 3);
    write_varint(packed.structure.len() as u64, &mut out);
    out.extend_from_slice(&packed.structure);
    out.extend_from_slice(&packed.text);
    out.into_boxed_slice()
}

struct Packed {
    structure: Vec<u8>,
    text: Vec<u8>,
}

impl Packed {
    fn write(&mut self, value: &Value) {
        let out = &mut self.structure;
        match value {
            Value::Null => out.push(NULL),
            Value::Bool(false) => out.push(FALSE),
            Value::Bool(true) => out.push(TRUE),
            Value::Number(number) => {
                if let Some(unsigned) = number.as_u64() {
                    out.push(UNSIGNED);
                    write_varint(unsigned, out);
                } else if let Some(negative) = number.as_i64() {
                    out.push(NEGATIVE);
                    out.extend_from_slice(&negative.to_le_bytes());
                } else {
                    out.push(FLOAT);
                    out.extend_from_slice(&number.as_f64().unwrap_or(0.0).to_le_bytes());
                }
            }
            Value::String(text) => {
                out.push(STRING);
                self.write_str(text);
            }
            Value::Array(items) => {
                out.push(ARRAY);
                write_varint(items.len() as u64, out);
                items.iter().for_each(|item| self.write(item));
            }
            Value::Object(map) => {
                out.push(OBJECT);
                write_varint(map.len() as u64, out);
                for (key, item) in map {
                    self.write_str(key);
                    self.write(item);
                }
            }
        }
    }

    fn write_str(&mut self, text: &str) {
        write_varint(text.len() as u64, &mut self.structure);
        self.text.extend_from_slice(text.as_bytes());
    }
}

fn write_varint(mut number: u64, out: &mut Vec<u8>) {
    while number >= 0x80 {
        out.push((number as u8) | 0x80);
        number >>= 7;
    }
    out.push(number as u8);
}

/// The value `bytes` were packed from (`Null` for bytes [`pack`] did not write).
pub(super) fn unpack(bytes: &[u8]) -> Value {
    Reader::of(bytes).and_then(|mut reader| reader.value()).unwrap_or(Value::Null)
}

/// Calls `visit` with every string of the packed value, keys and values, in the order of its compact JSON text.
pub(super) fn each_string(bytes: &[u8], visit: &mut impl FnMut(&str)) {
    if let Some(mut reader) = Reader::of(bytes) {
        let _ = reader.strings(visit);
    }
}

struct Reader<'b> {
    /// The structure.
    bytes: &'b [u8],
    at: usize,
    /// The strings' text.
    text: &'b str,
    text_at: usize,
}

impl<'b> Reader<'b> {
    fn of(bytes: &'b [u8]) -> Option<Reader<'b>> {
        let mut header = Reader { bytes, at: 0, text: "", text_at: 0 };
        let length = usize::try_from(header.varint()?).ok()?;
        let start = header.at;
        let end = start.checked_add(length)?;
        let text = std::str::from_utf8(bytes.get(end..)?).ok()?;
        Some(Reader { bytes: bytes.get(start..end)?, at: 0, text, text_at: 0 })
    }

    fn byte(&mut self) -> Option<u8> {
        let byte = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(byte)
    }

    fn varint(&mut self) -> Option<u64> {
        let mut number = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.byte()?;
            number |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return Some(number);
            }
        }
        None
    }

    fn eight(&mut self) -> Option<[u8; 8]> {
        let bytes = self.bytes.get(self.at..self.at + 8)?.try_into().ok()?;
        self.at += 8;
        Some(bytes)
    }

    fn str(&mut self) -> Option<&'b str> {
        let len = usize::try_from(self.varint()?).ok()?;
        let text = self.text.get(self.text_at..self.text_at.checked_add(len)?)?;
        self.text_at += len;
        Some(text)
    }

    fn value(&mut self) -> Option<Value> {
        Some(match self.byte()? {
            NULL => Value::Null,
            FALSE => Value::Bool(false),
            TRUE => Value::Bool(true),
            UNSIGNED => Value::Number(self.varint()?.into()),
            NEGATIVE => Value::Number(i64::from_le_bytes(self.eight()?).into()),
            FLOAT => Value::Number(Number::from_f64(f64::from_le_bytes(self.eight()?))?),
            STRING => Value::String(self.str()?.to_string()),
            ARRAY => {
                let count = usize::try_from(self.varint()?).ok()?;
                let mut items = Vec::with_capacity(count.min(self.bytes.len()));
                for _ in 0..count {
                    items.push(self.value()?);
                }
                Value::Array(items)
            }
            OBJECT => {
                let count = usize::try_from(self.varint()?).ok()?;
                let mut map = Map::with_capacity(count.min(self.bytes.len()));
                for _ in 0..count {
                    let key = self.str()?.to_string();
                    map.insert(key, self.value()?);
                }
                Value::Object(map)
            }
            _ => return None,
        })
    }

    fn strings(&mut self, visit: &mut impl FnMut(&str)) -> Option<()> {
        match self.byte()? {
            NULL | FALSE | TRUE => {}
            UNSIGNED => {
                self.varint()?;
            }
            NEGATIVE | FLOAT => {
                self.eight()?;
            }
            STRING => visit(self.str()?),
            ARRAY => {
                for _ in 0..self.varint()? {
                    self.strings(visit)?;
                }
            }
            OBJECT => {
                for _ in 0..self.varint()? {
                    visit(self.str()?);
                    self.strings(visit)?;
                }
            }
            _ => return None,
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn samples() -> Vec<Value> {
        vec![
            json!(null),
            json!({"z": 1, "a": [true, false, null], "m": {"": "", "é\"\\/\u{1}": "x\ny"}}),
            json!([0, 127, 128, 16_383, 16_384, u64::MAX, -1, i64::MIN, 1.5, -0.25, 1e300, 5e-324]),
            json!({"long": "k".repeat(300), "nested": [[[{"deep": [{}]}]]], "list": []}),
        ]
    }

    #[test]
    fn values_read_back_as_they_were_written() {
        for value in samples() {
            let read = unpack(&pack(&value));
            assert_eq!(read, value);
            assert_eq!(read.to_string(), value.to_string(), "key order and numbers of {value}");
        }
    }

    #[test]
    fn bytes_are_equal_exactly_when_the_compact_texts_are() {
        let values = [json!({"a": 1, "b": 2}), json!({"b": 2, "a": 1}), json!({"a": 1, "b": 2.0}), json!({"a": 1})];
        for a in &values {
            for b in &values {
                let (text_a, text_b) = (a.to_string(), b.to_string());
                assert_eq!(pack(a) == pack(b), text_a == text_b, "{a} and {b}");
            }
        }
    }

    #[test]
    fn strings_are_visited_in_text_order() {
        for value in samples() {
            let mut packed = Vec::new();
            each_string(&pack(&value), &mut |text| packed.push(text.to_string()));
            let mut walked = Vec::new();
            fn walk(value: &Value, out: &mut Vec<String>) {
                match value {
                    Value::String(text) => out.push(text.clone()),
                    Value::Object(map) => map.iter().for_each(|(key, item)| {
                        out.push(key.clone());
                        walk(item, out);
                    }),
                    Value::Array(items) => items.iter().for_each(|item| walk(item, out)),
                    _ => {}
                }
            }
            walk(&value, &mut walked);
            assert_eq!(packed, walked);
        }
    }

    #[test]
    fn bytes_it_did_not_write_read_as_null() {
        for bytes in [
            &[][..],
            &[1, 9],
            &[2, STRING, 5, b'a'],
            &[3, OBJECT, 1, 1, b'k'],
            &[2, UNSIGNED, 0x80],
            &[2, STRING, 1, 0xff],
            &[9, NULL],
        ] {
            assert_eq!(unpack(bytes), Value::Null, "{bytes:?}");
        }
    }
}

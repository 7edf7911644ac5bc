//! JSON for a log: serde_json's pretty output, with `\uXXXX` also for the characters serde_json leaves raw that a
//! terminal or a CI log would act on (DEL, the C1 controls, the Unicode line separators, the bidirectional
//! formatting characters) and for the second `#` of `##[` and `##vso[`. The JSON reads back to the same values.

use std::io;

use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter};

use super::{is_command_hash, is_unsafe_char};

/// serde_json's pretty formatter with the escapes of this module.
struct LogSafe<'a>(PrettyFormatter<'a>);

impl Formatter for LogSafe<'_> {
    fn write_string_fragment<W: ?Sized + io::Write>(&mut self, writer: &mut W, fragment: &str) -> io::Result<()> {
        let mut from = 0;
        for (at, c) in fragment.char_indices() {
            if is_unsafe_char(c) || (c == '#' && is_command_hash(fragment, at)) {
                writer.write_all(&fragment.as_bytes()[from..at])?;
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    write!(writer, "\\u{unit:04x}")?;
                }
                from = at + c.len_utf8();
            }
        }
        writer.write_all(&fragment.as_bytes()[from..])
    }

    fn begin_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_array(writer)
    }
    fn end_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_array(writer)
    }
    fn begin_array_value<W: ?Sized + io::Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(writer, first)
    }
    fn end_array_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_array_value(writer)
    }
    fn begin_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_object(writer)
    }
    fn end_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object(writer)
    }
    fn begin_object_key<W: ?Sized + io::Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(writer, first)
    }
    fn end_object_key<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object_key(writer)
    }
    fn begin_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_object_value(writer)
    }
    fn end_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object_value(writer)
    }
}

/// `value` as pretty-printed JSON (serde_json's layout) with the escapes of this module.
pub fn to_writer_pretty<W: io::Write, T: ?Sized + Serialize>(writer: W, value: &T) -> serde_json::Result<()> {
    let mut serializer = serde_json::Serializer::with_formatter(writer, LogSafe(PrettyFormatter::new()));
    value.serialize(&mut serializer)
}

/// [`to_writer_pretty`] into a string.
pub fn to_string_pretty<T: ?Sized + Serialize>(value: &T) -> serde_json::Result<String> {
    let mut out = Vec::new();
    to_writer_pretty(&mut out, value)?;
    // The serializer writes UTF-8 only.
    Ok(String::from_utf8(out).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn output_is_serde_jsons_for_ordinary_values() {
        let value = json!({"a": [1, {"b": "c # d ## e"}], "ü": null, "empty": {}, "list": []});
        assert_eq!(to_string_pretty(&value).unwrap(), serde_json::to_string_pretty(&value).unwrap());
    }

    #[test]
    fn unsafe_characters_are_escaped_and_read_back_the_same() {
        let text = super::super::tests::hostile_text();
        let value = json!({ text.clone(): [text.clone()] });
        let printed = to_string_pretty(&value).unwrap();
        assert!(!printed.chars().any(|c| is_unsafe_char(c) && c != '\n'), "{printed:?}");
        assert!(!printed.contains("##[") && !printed.contains("##vso["), "{printed}");
        assert!(printed.contains("\\u0085") && printed.contains("\\u202e") && printed.contains("#\\u0023[add-mask]"));
        let back: Value = serde_json::from_str(&printed).unwrap();
        assert_eq!(back, value);
    }
}

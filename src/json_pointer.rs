//! JSON pointer lookups (RFC 6901) without the allocations of `serde_json::Value::pointer`, and the typed reads
//! ([`At::str_at`] and its siblings) the crate reads fields with.

use std::borrow::Cow;

use serde_json::{Map, Value};

/// Maps up to this many entries are looked up by comparing keys (see [`field`]).
const SCANNED_FIELDS: usize = 16;

/// `map.get(key)`, by comparing the keys of a small map (most maps of a manifest): serde_json's map hashes each key
/// looked up with std's SipHash, which costs more than a few comparisons. Larger maps are looked up by hash.
/// Inlined: called from the schema walk's inner loop, where a call per field cost more than the comparisons.
#[inline(always)]
pub fn field<'v>(map: &'v Map<String, Value>, key: &str) -> Option<&'v Value> {
    if map.len() <= SCANNED_FIELDS { map.iter().find_map(|(k, v)| (k == key).then_some(v)) } else { map.get(key) }
}

/// `get(key)` on an object or a map through [`field`]: what the schema walk, the rules and the classic translation
/// use for their lookups by key (`Value::get` and `Map::get` hash the key with SipHash however small the map).
pub trait Fields {
    fn field(&self, key: &str) -> Option<&Value>;
}

// Inlined like `field`: a thin-LTO build that kept these as calls spent 5% more instructions.
impl Fields for Map<String, Value> {
    #[inline(always)]
    fn field(&self, key: &str) -> Option<&Value> {
        field(self, key)
    }
}

impl Fields for Value {
    #[inline(always)]
    fn field(&self, key: &str) -> Option<&Value> {
        self.as_object().and_then(|map| field(map, key))
    }
}

/// `token` as one reference token of a JSON pointer: `~` written `~0`, then `/` written `~1` (RFC 6901); borrowed
/// when there is nothing to escape.
pub fn escape_token(token: &str) -> Cow<'_, str> {
    if token.contains(['~', '/']) {
        Cow::Owned(token.replace('~', "~0").replace('/', "~1"))
    } else {
        Cow::Borrowed(token)
    }
}

/// One reference token of a JSON pointer as the key it names: `~1` read `/`, then `~0` read `~` (RFC 6901).
pub fn unescape_token(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// JSON pointer lookup like `Value::pointer` (same results), without the two `String`s serde_json allocates per
/// token to unescape it: the rules and the classic translation look up dozens of pointers per object.
///
/// The typed reads below are the one way the crate reads a field: each is `at` then serde_json's `as_*`, so a field
/// that is absent and one of another type both read as `None`.
pub trait At {
    fn at(&self, pointer: &str) -> Option<&Value>;

    /// The string at `pointer`.
    fn str_at(&self, pointer: &str) -> Option<&str> {
        self.at(pointer).and_then(Value::as_str)
    }
    /// The boolean at `pointer`.
    fn bool_at(&self, pointer: &str) -> Option<bool> {
        self.at(pointer).and_then(Value::as_bool)
    }
    /// The integer at `pointer`, when it fits an `i64`.
    fn i64_at(&self, pointer: &str) -> Option<i64> {
        self.at(pointer).and_then(Value::as_i64)
    }
    /// The integer at `pointer`, when it fits a `u64`.
    fn u64_at(&self, pointer: &str) -> Option<u64> {
        self.at(pointer).and_then(Value::as_u64)
    }
    /// The array at `pointer`.
    fn array_at(&self, pointer: &str) -> Option<&Vec<Value>> {
        self.at(pointer).and_then(Value::as_array)
    }
    /// The items of the array at `pointer`; none when it is absent or not an array.
    fn items_at(&self, pointer: &str) -> std::slice::Iter<'_, Value> {
        self.array_at(pointer).map_or([].iter(), |items| items.iter())
    }
    /// The object at `pointer`.
    fn object_at(&self, pointer: &str) -> Option<&Map<String, Value>> {
        self.at(pointer).and_then(Value::as_object)
    }
}

impl At for Value {
    fn at(&self, pointer: &str) -> Option<&Value> {
        if pointer.is_empty() {
            return Some(self);
        }
        let tokens = pointer.strip_prefix('/')?;
        let mut target = self;
        let mut start = 0;
        // The tokens split by hand, byte by byte: pointers are short, and `split('/')` with `contains('~')` set up
        // a character searcher per token (a third of the lookups' instructions).
        loop {
            let end = tokens.as_bytes()[start..].iter().position(|&b| b == b'/').map_or(tokens.len(), |i| start + i);
            let raw = &tokens[start..end];
            let token: Cow<'_, str> = if raw.bytes().any(|b| b == b'~') {
                Cow::Owned(raw.replace("~1", "/").replace("~0", "~"))
            } else {
                Cow::Borrowed(raw)
            };
            target = match target {
                Value::Object(map) => field(map, token.as_ref())?,
                Value::Array(items) => items.get(array_index(&token)?)?,
                _ => return None,
            };
            if end == tokens.len() {
                return Some(target);
            }
            start = end + 1;
        }
    }
}

/// An array index token as serde_json reads it: no sign, no leading zero.
fn array_index(token: &str) -> Option<usize> {
    if token.starts_with('+') || (token.starts_with('0') && token.len() != 1) {
        return None;
    }
    token.parse().ok()
}

/// Calls `visit` with the JSON pointer of every scalar below `value`.
pub fn leaf_pointers(value: &Value, pointer: &mut String, visit: &mut impl FnMut(&str)) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let length = pointer.len();
                pointer.push('/');
                pointer.push_str(&escape_token(key));
                leaf_pointers(child, pointer, visit);
                pointer.truncate(length);
            }
        }
        Value::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                let length = pointer.len();
                pointer.push_str(&format!("/{index}"));
                leaf_pointers(child, pointer, visit);
                pointer.truncate(length);
            }
        }
        _ => visit(pointer),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointer_tokens_escape_tilde_then_slash() {
        assert_eq!(escape_token("metadata"), "metadata");
        assert_eq!(escape_token("example.com/team"), "example.com~1team");
        assert_eq!(escape_token("a~/b"), "a~0~1b");
        assert_eq!(escape_token("~1"), "~01");
    }

    #[test]
    fn at_finds_what_serde_json_pointer_finds() {
        let value = serde_json::json!({
            "a": {"b/c": [1, {"d~e": true}], "": 2, "0": "zero"},
            "list": [[3]]
        });
        for pointer in [
            "",
            "/",
            "/a",
            "/a/b~1c",
            "/a/b~1c/0",
            "/a/b~1c/1/d~0e",
            "/a/b~1c/01",
            "/a/b~1c/+1",
            "/a/b~1c/2",
            "/a/",
            "/a/0",
            "/list/0/0",
            "/list/0/0/x",
            "a",
            "/missing/x",
            "/a/b~01c",
            "//",
            "/a//",
            "/list/0/",
            "/a/0/",
        ] {
            assert_eq!(value.at(pointer), value.pointer(pointer), "{pointer:?}");
        }
    }

    #[test]
    fn typed_reads_find_their_type_only() {
        let value = serde_json::json!({
            "s": "text", "b": true, "n": -3, "u": 7, "f": 1.5, "big": u64::MAX,
            "list": ["x", 2], "map": {"k": "v"}, "null": null,
            "example.com/team": {"a~b": "escaped"}
        });
        assert_eq!(value.str_at("/s"), Some("text"));
        assert_eq!(value.bool_at("/b"), Some(true));
        assert_eq!(value.i64_at("/n"), Some(-3));
        assert_eq!(value.u64_at("/u"), Some(7));
        assert_eq!(value.u64_at("/big"), Some(u64::MAX));
        assert_eq!(value.array_at("/list").map(Vec::len), Some(2));
        assert_eq!(value.items_at("/list").collect::<Vec<_>>(), [&serde_json::json!("x"), &serde_json::json!(2)]);
        assert_eq!(value.object_at("/map").and_then(|map| map.get("k")), Some(&serde_json::json!("v")));
        assert_eq!(value.str_at("/list/0"), Some("x"));
        assert_eq!(value.i64_at("/list/1"), Some(2));
        // Escaped tokens: `~1` is `/`, `~0` is `~`.
        assert_eq!(value.str_at("/example.com~1team/a~0b"), Some("escaped"));
        assert_eq!(value.str_at("/example.com/team/a~b"), None);
        // Absent paths.
        for pointer in ["/missing", "/map/missing", "/list/2", "/s/deeper", "missing"] {
            assert_eq!(value.at(pointer), None, "{pointer:?}");
            assert_eq!(value.str_at(pointer), None, "{pointer:?}");
            assert_eq!(value.items_at(pointer).count(), 0, "{pointer:?}");
        }
        // Other types read as absent.
        assert_eq!(value.str_at("/b"), None);
        assert_eq!(value.str_at("/null"), None);
        assert_eq!(value.bool_at("/s"), None);
        assert_eq!(value.i64_at("/f"), None);
        assert_eq!(value.i64_at("/big"), None);
        assert_eq!(value.u64_at("/n"), None);
        assert_eq!(value.u64_at("/s"), None);
        assert_eq!(value.array_at("/map"), None);
        assert_eq!(value.items_at("/map").count(), 0);
        assert_eq!(value.object_at("/list"), None);
        // The empty pointer is the value itself.
        assert_eq!(value.object_at("").map(Map::len), Some(10));
        assert_eq!(serde_json::json!("whole").str_at(""), Some("whole"));
    }
}

//! Decoding an embedded schema's pre-parsed tree (written by build.rs, `pack_schema_trees`) straight into a
//! [`KindSchema`]: the same `Value` the JSON reader gives, without tokenizing, unescaping or number parsing.

use serde_json::{Map, Number, Value};

use super::KindSchema;
use super::embedded;

/// The kind in `tree`, whole.
pub(crate) fn read_kind(tree: &[u8]) -> Result<KindSchema, String> {
    let (kind, _) = Reader { bytes: tree, at: 0 }.kind(Part::Whole)?;
    Ok(kind)
}

/// The kind in `tree` with only the schema that checking `object` reads (see [`Part::For`]); `None` when the
/// kind has CEL rules (their compiled form is cached per kind, from the whole schema).
pub(crate) fn read_kind_for(tree: &[u8], object: &Value) -> Result<Option<KindSchema>, String> {
    let (kind, usable) = Reader { bytes: tree, at: 0 }.kind(Part::For(object))?;
    Ok(usable.then_some(kind))
}

/// The kind in `tree` with the subtree of its root `status` property skipped and replaced by an empty
/// schema (see [`super::Registry::get_without_status`]); `None` when that `status` schema has a default (an
/// object without status would get one): then the whole kind is needed.
pub(crate) fn read_kind_without_status(tree: &[u8]) -> Result<Option<KindSchema>, String> {
    let (kind, usable) = Reader { bytes: tree, at: 0 }.kind(Part::WithoutStatus)?;
    Ok(usable.then_some(kind))
}

/// The JSON Schema of a values file (`src/params/values.schema.json`), decoded from its tree.
pub(crate) fn values_schema() -> Result<Value, String> {
    let tree = embedded::values_schema_tree().ok_or("no values schema tree")?;
    Reader { bytes: tree, at: 0 }.node()
}

/// Which part of a kind's schema is decoded.
#[derive(Clone, Copy)]
enum Part<'o> {
    Whole,
    /// Without the subtree of the root `status` property.
    WithoutStatus,
    /// What the schema walk of this one object reads: below every object node the object has, the properties
    /// it does not have are left out, unless they have a `default` (the walk inserts it and checks it against the
    /// whole subtree); every other keyword (`items`, `additionalProperties`, `anyOf`, `required`, ...) is whole.
    /// The walk never looks at the schema of a field an object lacks otherwise, so its findings are the same.
    For(&'o Value),
}

// The tag byte of each kind of node (build.rs writes them; `lint::packed_value` uses the same ones).
pub(crate) const NULL: u8 = 0;
pub(crate) const FALSE: u8 = 1;
pub(crate) const TRUE: u8 = 2;
pub(crate) const UNSIGNED: u8 = 3;
pub(crate) const NEGATIVE: u8 = 4;
pub(crate) const FLOAT: u8 = 5;
pub(crate) const STRING: u8 = 6;
pub(crate) const ARRAY: u8 = 7;
pub(crate) const OBJECT: u8 = 8;

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> Result<u8, String> {
        let byte = *self.bytes.get(self.at).ok_or("the tree ends early")?;
        self.at += 1;
        Ok(byte)
    }

    fn varint(&mut self) -> Result<u64, String> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.byte()?;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(format!("a varint longer than 64 bits at byte {}", self.at))
    }

    /// The number of items of an array or entries of an object: each takes at least one byte.
    fn count(&mut self) -> Result<usize, String> {
        let count = self.varint()?;
        usize::try_from(count)
            .ok()
            .filter(|count| *count <= self.bytes.len() - self.at)
            .ok_or_else(|| format!("a count of {count} beyond the end of the tree at byte {}", self.at))
    }

    fn fixed(&mut self) -> Result<[u8; 8], String> {
        let bytes = self.bytes.get(self.at..self.at + 8).ok_or("the tree ends early")?;
        self.at += 8;
        Ok(bytes.try_into().unwrap_or_default())
    }

    fn string(&mut self) -> Result<&'static str, String> {
        let index = self.varint()?;
        usize::try_from(index).ok().and_then(embedded::string).ok_or_else(|| format!("no string number {index}"))
    }

    fn tag(&mut self, expected: u8, what: &str) -> Result<(), String> {
        match self.byte()? {
            tag if tag == expected => Ok(()),
            tag => Err(format!("{what}: expected tag {expected}, found {tag} at byte {}", self.at - 1)),
        }
    }

    fn node(&mut self) -> Result<Value, String> {
        Ok(match self.byte()? {
            NULL => Value::Null,
            FALSE => Value::Bool(false),
            TRUE => Value::Bool(true),
            UNSIGNED => Value::Number(Number::from(self.varint()?)),
            NEGATIVE => Value::Number(Number::from(i64::from_le_bytes(self.fixed()?))),
            FLOAT => {
                let float = f64::from_le_bytes(self.fixed()?);
                Value::Number(Number::from_f64(float).ok_or_else(|| format!("{float} is not a JSON number"))?)
            }
            STRING => Value::String(self.string()?.to_owned()),
            ARRAY => {
                let count = self.count()?;
                let mut items = Vec::with_capacity(count);
                for _ in 0..count {
                    items.push(self.node()?);
                }
                Value::Array(items)
            }
            OBJECT => {
                let count = self.count()?;
                let mut map = Map::with_capacity(count);
                for _ in 0..count {
                    let key = self.string()?.to_owned();
                    map.insert(key, self.node()?);
                }
                Value::Object(map)
            }
            tag => return Err(format!("unknown tag {tag} at byte {}", self.at - 1)),
        })
    }

    /// Passes over a node without building it.
    fn skip(&mut self) -> Result<(), String> {
        match self.byte()? {
            NULL | FALSE | TRUE => {}
            UNSIGNED | STRING => {
                self.varint()?;
            }
            NEGATIVE | FLOAT => {
                self.fixed()?;
            }
            ARRAY => {
                for _ in 0..self.count()? {
                    self.skip()?;
                }
            }
            OBJECT => {
                for _ in 0..self.count()? {
                    self.varint()?;
                    self.skip()?;
                }
            }
            tag => return Err(format!("unknown tag {tag} at byte {}", self.at - 1)),
        }
        Ok(())
    }

    fn text(&mut self, field: &str) -> Result<String, String> {
        self.tag(STRING, field)?;
        Ok(self.string()?.to_owned())
    }

    fn flag(&mut self, field: &str) -> Result<bool, String> {
        match self.byte()? {
            FALSE => Ok(false),
            TRUE => Ok(true),
            tag => Err(format!("{field}: expected a boolean, found tag {tag} at byte {}", self.at - 1)),
        }
    }

    /// A schema file's object (the fields of [`KindSchema`]; others are passed over, as serde does), and
    /// whether it can be used: not when the skipped `status` schema has a default, nor when a schema read for
    /// one object belongs to a kind with CEL rules.
    fn kind(&mut self, part: Part<'_>) -> Result<(KindSchema, bool), String> {
        self.tag(OBJECT, "the schema file")?;
        let mut kind = KindSchema {
            group: String::new(),
            version: String::new(),
            kind: String::new(),
            plural: String::new(),
            scope: String::new(),
            status_subresource: false,
            deprecation_warning: None,
            cel: false,
            typed: false,
            schema: Value::Null,
            status_omitted: false,
            defaults: Default::default(),
        };
        let mut status_has_default = false;
        let mut found = [false; 6];
        for _ in 0..self.count()? {
            let field = self.string()?;
            match field {
                "group" => (kind.group, found[0]) = (self.text(field)?, true),
                "version" => (kind.version, found[1]) = (self.text(field)?, true),
                "kind" => (kind.kind, found[2]) = (self.text(field)?, true),
                "plural" => (kind.plural, found[3]) = (self.text(field)?, true),
                "scope" => (kind.scope, found[4]) = (self.text(field)?, true),
                "statusSubresource" => kind.status_subresource = self.flag(field)?,
                "cel" => kind.cel = self.flag(field)?,
                "typed" => kind.typed = self.flag(field)?,
                "deprecationWarning" => {
                    kind.deprecation_warning = match self.node()? {
                        Value::Null => None,
                        Value::String(warning) => Some(warning),
                        other => return Err(format!("{field}: expected a string, found {other}")),
                    }
                }
                "schema" => {
                    found[5] = true;
                    match part {
                        Part::WithoutStatus => {
                            (kind.schema, kind.status_omitted, status_has_default) = self.schema_without_status()?
                        }
                        // The fields are written in `KindSchema`'s order: `cel` comes first.
                        Part::For(_) if kind.cel => self.skip()?,
                        Part::For(object) => kind.schema = self.schema_for(object)?,
                        Part::Whole => kind.schema = self.node()?,
                    }
                }
                _ => self.skip()?,
            }
        }
        let names = ["group", "version", "kind", "plural", "scope", "schema"];
        if let Some(missing) = names.iter().zip(found).find_map(|(name, found)| (!found).then_some(name)) {
            return Err(format!("missing field `{missing}`"));
        }
        let usable = match part {
            Part::Whole => true,
            Part::WithoutStatus => !status_has_default,
            Part::For(_) => !kind.cel,
        };
        Ok((kind, usable))
    }

    /// The schema node here with, when `value` is an object, only the properties its walk reads (see
    /// [`Part::For`]).
    fn schema_for(&mut self, value: &Value) -> Result<Value, String> {
        let Value::Object(object) = value else { return self.node() };
        if self.bytes.get(self.at) != Some(&OBJECT) {
            return self.node();
        }
        self.at += 1;
        let count = self.count()?;
        let mut schema = Map::with_capacity(count);
        for _ in 0..count {
            let key = self.string()?;
            let node = if key == "properties" { self.properties_for(object)? } else { self.node()? };
            schema.insert(key.to_owned(), node);
        }
        Ok(Value::Object(schema))
    }

    /// A `properties` node with the properties of `object` (each read for its value) and those with a default.
    fn properties_for(&mut self, object: &Map<String, Value>) -> Result<Value, String> {
        if self.bytes.get(self.at) != Some(&OBJECT) {
            return self.node();
        }
        self.at += 1;
        let mut properties = Map::new();
        for _ in 0..self.count()? {
            let name = self.string()?;
            if let Some(value) = object.get(name) {
                properties.insert(name.to_owned(), self.schema_for(value)?);
            } else if let Some(schema) = self.defaulted_schema()? {
                properties.insert(name.to_owned(), schema);
            }
        }
        Ok(Value::Object(properties))
    }

    /// The schema node here, whole, when it has a `default`; else passes over it.
    fn defaulted_schema(&mut self) -> Result<Option<Value>, String> {
        let start = self.at;
        if self.bytes.get(self.at) != Some(&OBJECT) {
            self.skip()?;
            return Ok(None);
        }
        self.at += 1;
        let mut has_default = false;
        for _ in 0..self.count()? {
            has_default |= self.string()? == "default";
            self.skip()?;
        }
        if !has_default {
            return Ok(None);
        }
        self.at = start;
        self.node().map(Some)
    }

    /// The root schema with its `properties.status` subtree passed over (an empty schema in its place):
    /// (schema, whether a `status` was passed over, whether it has a `default`).
    fn schema_without_status(&mut self) -> Result<(Value, bool, bool), String> {
        self.tag(OBJECT, "schema")?;
        let count = self.count()?;
        let mut root = Map::with_capacity(count);
        let (mut omitted, mut has_default) = (false, false);
        for _ in 0..count {
            let key = self.string()?;
            if key != "properties" {
                root.insert(key.to_owned(), self.node()?);
                continue;
            }
            self.tag(OBJECT, "schema properties")?;
            let count = self.count()?;
            let mut properties = Map::with_capacity(count);
            for _ in 0..count {
                let name = self.string()?;
                if name == "status" {
                    self.tag(OBJECT, "the status schema")?;
                    for _ in 0..self.count()? {
                        has_default |= self.string()? == "default";
                        self.skip()?;
                    }
                    omitted = true;
                    properties.insert(name.to_owned(), Value::Object(Map::new()));
                } else {
                    properties.insert(name.to_owned(), self.node()?);
                }
            }
            root.insert(key.to_owned(), Value::Object(properties));
        }
        Ok((Value::Object(root), omitted, has_default))
    }
}

//! The JSON pointer of the node a schema walk is at, built as text only when a finding names it.

use std::fmt;

/// Where the walk is: the chain of keys and indices from the object's root (a prefix such as
/// `/spec/resources/0` for an embedded object), held on the stack of the walk.
#[derive(Clone, Copy)]
pub(crate) enum Pointer<'a> {
    /// The root of the walked object, as a pointer text (empty for a document's root).
    Root(&'a str),
    /// A field of the parent object.
    Key(&'a Pointer<'a>, &'a str),
    /// An item of the parent array.
    Index(&'a Pointer<'a>, usize),
}

impl fmt::Display for Pointer<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pointer::Root(prefix) => f.write_str(prefix),
            Pointer::Key(parent, key) => {
                parent.fmt(f)?;
                f.write_str("/")?;
                write_token(key, f)
            }
            Pointer::Index(parent, index) => {
                parent.fmt(f)?;
                write!(f, "/{index}")
            }
        }
    }
}

/// One pointer token, `~` and `/` escaped (as [`crate::json_pointer::escape_token`]).
fn write_token(token: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    if !token.bytes().any(|b| b == b'~' || b == b'/') {
        return f.write_str(token);
    }
    for c in token.chars() {
        match c {
            '~' => f.write_str("~0")?,
            '/' => f.write_str("~1")?,
            c => fmt::Write::write_char(f, c)?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pointer_is_written_as_the_keys_and_indices_it_chains() {
        let root = Pointer::Root("/spec/resources/0");
        let spec = Pointer::Key(&root, "spec");
        let list = Pointer::Key(&spec, "a/b~c");
        let item = Pointer::Index(&list, 3);
        assert_eq!(item.to_string(), "/spec/resources/0/spec/a~1b~0c/3");
        assert_eq!(Pointer::Key(&Pointer::Root(""), "metadata").to_string(), "/metadata");
        assert_eq!(Pointer::Root("").to_string(), "");
    }
}

//! sprig's encoding functions: base64, checksums and JSON.

use base64::Engine as _;
use serde_json::Value;

use super::super::GoValue;
use super::super::value::as_str;
use super::support::{json_marshal, want_args};

/// The functions of this family: [`call`] answers for exactly these names.
pub(super) const NAMES: &[&str] =
    &["adler32sum", "b64dec", "b64enc", "fromJson", "sha256sum", "sha512sum", "toJson", "toPrettyJson", "toRawJson"];

/// Calls `name` (one of [`NAMES`]) with `args`.
pub(super) fn call(name: &str, args: Vec<GoValue>) -> Result<GoValue, String> {
    use GoValue as V;
    let s = |v: &GoValue| as_str(v);
    Ok(match name {
        "b64enc" => {
            want_args(name, &args, 1)?;
            V::Str(base64::engine::general_purpose::STANDARD.encode(s(&args[0])?))
        }
        "b64dec" => {
            want_args(name, &args, 1)?;
            V::Str(match base64::engine::general_purpose::STANDARD.decode(s(&args[0])?) {
                Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                Err(e) => e.to_string(),
            })
        }
        "sha256sum" => {
            use sha2::Digest as _;
            want_args(name, &args, 1)?;
            let digest = sha2::Sha256::digest(s(&args[0])?.as_bytes());
            V::Str(digest.iter().map(|b| format!("{b:02x}")).collect())
        }
        "toJson" | "toRawJson" => {
            want_args(name, &args, 1)?;
            V::Str(json_marshal(&args[0], false, name == "toJson").map_err(|e| format!("error calling {name}: {e}"))?)
        }
        "toPrettyJson" => {
            want_args(name, &args, 1)?;
            V::Str(json_marshal(&args[0], true, true).map_err(|e| format!("error calling {name}: {e}"))?)
        }
        "fromJson" => {
            want_args(name, &args, 1)?;
            match serde_json::from_str::<Value>(&s(&args[0])?) {
                Ok(v) => GoValue::from_json(&v),
                Err(_) => V::Nil,
            }
        }
        "sha512sum" => {
            use sha2::Digest as _;
            want_args(name, &args, 1)?;
            V::Str(sha2::Sha512::digest(s(&args[0])?.as_bytes()).iter().map(|b| format!("{b:02x}")).collect())
        }
        "adler32sum" => {
            want_args(name, &args, 1)?;
            let (mut a, mut b) = (1u32, 0u32);
            for byte in s(&args[0])?.bytes() {
                a = (a + u32::from(byte)) % 65521;
                b = (b + a) % 65521;
            }
            V::Str(((b << 16) | a).to_string())
        }
        other => return Err(format!("function \"{other}\" not defined")),
    })
}

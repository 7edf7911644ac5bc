//! sprig's reflection functions (`kindOf`, `typeOf`, `deepEqual` …).

use super::super::GoValue;
use super::super::value::as_str;
use super::support::want_args;

/// The functions of this family: [`call`] answers for exactly these names.
pub(super) const NAMES: &[&str] = &["deepEqual", "kindIs", "kindOf", "typeIs", "typeIsLike", "typeOf"];

/// Calls `name` (one of [`NAMES`]) with `args`.
pub(super) fn call(name: &str, args: Vec<GoValue>) -> Result<GoValue, String> {
    use GoValue as V;
    let s = |v: &GoValue| as_str(v);
    Ok(match name {
        "kindOf" => {
            want_args(name, &args, 1)?;
            V::Str(args[0].kind().to_string())
        }
        "kindIs" => {
            want_args(name, &args, 2)?;
            V::Bool(s(&args[0])? == args[1].kind())
        }
        "typeOf" => {
            want_args(name, &args, 1)?;
            V::Str(args[0].type_name().to_string())
        }
        "typeIs" => {
            want_args(name, &args, 2)?;
            V::Bool(s(&args[0])? == args[1].type_name())
        }
        "deepEqual" => {
            want_args(name, &args, 2)?;
            V::Bool(args[0] == args[1])
        }
        "typeIsLike" => {
            want_args(name, &args, 2)?;
            let t = s(&args[0])?;
            let actual = args[1].type_name();
            V::Bool(t == actual || t == format!("*{actual}"))
        }
        other => return Err(format!("function \"{other}\" not defined")),
    })
}

//! Go's `fmt`: `Sprint`, `Sprintf` verbs and flags, `%q` quoting.

use std::fmt::Write as _;

use super::value::{GoValue, format_float_g};

/// `fmt.Sprint`: spaces between operands when neither is a string.
pub(super) fn go_sprint(args: &[GoValue]) -> String {
    let mut out = String::new();
    for (i, a) in args.iter().enumerate() {
        if i > 0 && !matches!(a, GoValue::Str(_)) && !matches!(args[i - 1], GoValue::Str(_)) {
            out.push(' ');
        }
        out.push_str(&a.sprint());
    }
    out
}

/// `strconv.Quote` (what sprig's `quote` and `%q` produce).
pub(super) fn go_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Go's `fmt.Sprintf` for the verbs templates use: %v %s %d %q %f %g %e %t %x %X %o %b %c %%,
/// with flags `-+ 0#`, width and precision. Wrong types print `%!d(string=x)` like Go.
pub fn sprintf(format: &str, args: &[GoValue]) -> String {
    let mut out = String::new();
    let mut chars = format.chars().peekable();
    let mut argi = 0;
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let (mut minus, mut plus, mut zero, mut space) = (false, false, false, false);
        while let Some(&f) = chars.peek() {
            match f {
                '-' => minus = true,
                '+' => plus = true,
                '0' => zero = true,
                ' ' => space = true,
                '#' => {}
                _ => break,
            }
            chars.next();
        }
        let mut width = String::new();
        while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
            width.push(d);
            chars.next();
        }
        let mut prec: Option<usize> = None;
        if chars.peek() == Some(&'.') {
            chars.next();
            let mut p = String::new();
            while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                p.push(d);
                chars.next();
            }
            prec = Some(p.parse().unwrap_or(0));
        }
        let Some(verb) = chars.next() else {
            out.push_str("%!(NOVERB)");
            break;
        };
        if verb == '%' {
            out.push('%');
            continue;
        }
        let Some(arg) = args.get(argi) else {
            let _ = write!(out, "%!{verb}(MISSING)");
            continue;
        };
        argi += 1;
        let bad = |arg: &GoValue| match arg {
            GoValue::Missing | GoValue::Nil => format!("%!{verb}(<nil>)"),
            _ => format!("%!{verb}({}={})", arg.type_name(), arg.sprint()),
        };
        let mut body = match (verb, arg) {
            ('v', GoValue::Missing | GoValue::Nil) => "<nil>".to_string(),
            ('v', GoValue::Float(f)) if prec.is_some() => format!("{:.*}", prec.unwrap_or(6), f),
            ('v', a) => a.sprint(),
            ('s', GoValue::Str(s)) => match prec {
                Some(p) => s.chars().take(p).collect(),
                None => s.clone(),
            },
            ('s', GoValue::List(_) | GoValue::Map(_)) => arg.sprint(),
            ('q', GoValue::Str(s)) => go_quote(s),
            ('q', GoValue::Int(i)) => format!("'{}'", char::from_u32(*i as u32).unwrap_or('\u{fffd}')),
            ('t', GoValue::Bool(b)) => b.to_string(),
            ('d', GoValue::Int(i)) => i.to_string(),
            ('x', GoValue::Int(i)) => format!("{i:x}"),
            ('X', GoValue::Int(i)) => format!("{i:X}"),
            ('o', GoValue::Int(i)) => format!("{i:o}"),
            ('b', GoValue::Int(i)) => format!("{i:b}"),
            ('c', GoValue::Int(i)) => char::from_u32(*i as u32).map(String::from).unwrap_or_default(),
            ('x', GoValue::Str(s)) => s.bytes().map(|b| format!("{b:02x}")).collect(),
            ('X', GoValue::Str(s)) => s.bytes().map(|b| format!("{b:02X}")).collect(),
            ('f' | 'F', GoValue::Float(f)) => format!("{:.*}", prec.unwrap_or(6), f),
            ('e', GoValue::Float(f)) => go_exp(*f, prec.unwrap_or(6)),
            ('g', GoValue::Float(f)) => format_float_g(*f),
            _ => bad(arg),
        };
        if plus
            && matches!(arg, GoValue::Int(_) | GoValue::Float(_))
            && !body.starts_with('-')
            && matches!(verb, 'd' | 'f' | 'v' | 'g' | 'e')
        {
            body.insert(0, '+');
        } else if space && matches!(arg, GoValue::Int(_) | GoValue::Float(_)) && !body.starts_with('-') {
            body.insert(0, ' ');
        }
        let width: usize = width.parse().unwrap_or(0);
        let len = body.chars().count();
        if len < width {
            let pad = width - len;
            if minus {
                body.push_str(&" ".repeat(pad));
            } else if zero && matches!(arg, GoValue::Int(_) | GoValue::Float(_)) {
                let (sign, digits) = if body.starts_with(['-', '+']) { body.split_at(1) } else { ("", body.as_str()) };
                body = format!("{sign}{}{digits}", "0".repeat(pad));
            } else {
                body = format!("{}{body}", " ".repeat(pad));
            }
        }
        out.push_str(&body);
    }
    if argi < args.len() {
        out.push_str("%!(EXTRA ");
        let extra: Vec<String> = args[argi..].iter().map(|a| format!("{}={}", a.type_name(), a.sprint())).collect();
        out.push_str(&extra.join(", "));
        out.push(')');
    }
    out
}

pub(super) fn go_exp(f: f64, prec: usize) -> String {
    let s = format!("{f:.prec$e}");
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

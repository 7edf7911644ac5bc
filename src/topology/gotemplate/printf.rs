//! Go's `fmt` as templates reach it: `Sprint` and `Sprintf` (every verb, flag, width, precision
//! and argument index Go accepts, with Go's `%!verb(type=value)` error forms) and `strconv.Quote`.
//!
//! Ported from the behaviour of Go's `fmt/print.go` and `fmt/format.go`; replayed against real Go
//! in `tests/referee/plan_gotemplate.rs`.

use super::limits;
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
    quote_with(s, '"', false)
}

/// `unicode.IsPrint`, close enough for quoting: letters, marks, numbers, punctuation, symbols and
/// the ASCII space are printable; controls, other spaces, format characters, private use and
/// noncharacters are not.
fn is_print(c: char) -> bool {
    let u = c as u32;
    if u < 0x80 {
        return (0x20..0x7f).contains(&u);
    }
    !(c.is_control()
        || c.is_whitespace()
        || matches!(u, 0xad | 0x600..=0x605 | 0x61c | 0x6dd | 0x70f | 0x180e | 0x200b..=0x200f | 0x2028..=0x202e)
        || matches!(u, 0x2060..=0x206f | 0xfeff | 0xfff9..=0xfffb | 0xe000..=0xf8ff | 0xf0000..)
        || (u & 0xfffe) == 0xfffe
        || (0xfdd0..=0xfdef).contains(&u))
}

/// `strconv.appendQuotedWith` for valid UTF-8.
fn quote_with(s: &str, quote: char, ascii_only: bool) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        escape_rune(&mut out, c, quote, ascii_only);
    }
    out.push(quote);
    out
}

fn escape_rune(out: &mut String, c: char, quote: char, ascii_only: bool) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    if c == quote || c == '\\' {
        out.push('\\');
        out.push(c);
        return;
    }
    if if ascii_only { c.is_ascii() && is_print(c) } else { is_print(c) } {
        out.push(c);
        return;
    }
    let r = c as u32;
    match c {
        '\x07' => out.push_str("\\a"),
        '\x08' => out.push_str("\\b"),
        '\x0c' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\x0b' => out.push_str("\\v"),
        _ if r < 0x20 || r == 0x7f => {
            out.push_str("\\x");
            out.push(HEX[(r >> 4) as usize & 15] as char);
            out.push(HEX[r as usize & 15] as char);
        }
        _ if r < 0x10000 => {
            out.push_str("\\u");
            for shift in [12, 8, 4, 0] {
                out.push(HEX[(r >> shift) as usize & 15] as char);
            }
        }
        _ => {
            out.push_str("\\U");
            for shift in [28, 24, 20, 16, 12, 8, 4, 0] {
                out.push(HEX[(r >> shift) as usize & 15] as char);
            }
        }
    }
}

/// `strconv.CanBackquote` for valid UTF-8.
fn can_backquote(s: &str) -> bool {
    s.chars()
        .all(|c| if c.len_utf8() > 1 { c != '\u{feff}' } else { !((c < ' ' && c != '\t') || c == '`' || c == '\x7f') })
}

/// Go's `fmt.Sprintf`. Errors only when the output would pass the template engine's size limit.
pub fn sprintf(format: &str, args: &[GoValue]) -> Result<String, String> {
    let mut p = Printer { buf: Vec::new(), f: Flags::default(), good_arg_num: true, reordered: false };
    p.do_printf(format.as_bytes(), args)?;
    // Every piece written is valid UTF-8 (copied format text, formatted values, whole runes).
    Ok(String::from_utf8(p.buf).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

#[derive(Default, Clone, Copy)]
struct Flags {
    plus: bool,
    minus: bool,
    sharp: bool,
    space: bool,
    zero: bool,
    plus_v: bool,
    sharp_v: bool,
    wid: usize,
    wid_present: bool,
    prec: usize,
    prec_present: bool,
}

struct Printer {
    buf: Vec<u8>,
    f: Flags,
    good_arg_num: bool,
    reordered: bool,
}

/// Go's `tooLarge`: widths and precisions above a million are refused.
fn too_large(x: i64) -> bool {
    !(-1_000_000..=1_000_000).contains(&x)
}

/// Go's `parsenum`: (number, is a number, next index); a crazy long number consumes the rest.
fn parse_num(s: &[u8], start: usize, end: usize) -> (usize, bool, usize) {
    if start >= end {
        return (0, false, end);
    }
    let (mut num, mut isnum, mut i) = (0i64, false, start);
    while i < end && s[i].is_ascii_digit() {
        if too_large(num) {
            return (0, false, end);
        }
        num = num * 10 + i64::from(s[i] - b'0');
        isnum = true;
        i += 1;
    }
    (num as usize, isnum, i)
}

/// Go's `parseArgNumber` on `[n]`: (zero-based index, bytes consumed, ok).
fn parse_arg_number(format: &[u8]) -> (i64, usize, bool) {
    if format.len() < 3 {
        return (0, 1, false);
    }
    for i in 1..format.len() {
        if format[i] == b']' {
            let (width, ok, newi) = parse_num(format, 1, i);
            if !ok || newi != i {
                return (0, i + 1, false);
            }
            return (width as i64 - 1, i + 1, true);
        }
    }
    (0, 1, false)
}

/// Go's `intFromArg`: a `*` width or precision must be an int argument.
fn int_from_arg(args: &[GoValue], arg_num: usize) -> (i64, bool, usize) {
    let Some(arg) = args.get(arg_num) else { return (0, false, arg_num) };
    let (num, ok) = match arg {
        GoValue::Int(i) => (*i, true),
        _ => (0, false),
    };
    if too_large(num) { (0, false, arg_num + 1) } else { (num, ok, arg_num + 1) }
}

impl Printer {
    fn write(&mut self, s: &[u8]) -> Result<(), String> {
        if self.buf.len() + s.len() > limits::MAX_STRING_BYTES {
            return Err(limits::string_too_long("printf"));
        }
        self.buf.extend_from_slice(s);
        Ok(())
    }

    fn write_str(&mut self, s: &str) -> Result<(), String> {
        self.write(s.as_bytes())
    }

    fn arg_number(&mut self, arg_num: usize, format: &[u8], i: usize, num_args: usize) -> (usize, usize, bool) {
        if format.len() <= i || format[i] != b'[' {
            return (arg_num, i, false);
        }
        self.reordered = true;
        let (index, wid, ok) = parse_arg_number(&format[i..]);
        if ok && 0 <= index && (index as usize) < num_args {
            return (index as usize, i + wid, true);
        }
        self.good_arg_num = false;
        (arg_num, i + wid, ok)
    }

    fn do_printf(&mut self, format: &[u8], args: &[GoValue]) -> Result<(), String> {
        let end = format.len();
        let mut arg_num = 0usize;
        let mut after_index;
        self.reordered = false;
        let mut i = 0;
        'format: while i < end {
            self.good_arg_num = true;
            let last = i;
            while i < end && format[i] != b'%' {
                i += 1;
            }
            if i > last {
                self.write(&format[last..i])?;
            }
            if i >= end {
                break;
            }
            i += 1;
            self.f = Flags::default();
            while i < end {
                match format[i] {
                    b'#' => self.f.sharp = true,
                    b'0' => self.f.zero = true,
                    b'+' => self.f.plus = true,
                    b'-' => self.f.minus = true,
                    b' ' => self.f.space = true,
                    c => {
                        if c.is_ascii_lowercase() && arg_num < args.len() {
                            self.print_verb(&args[arg_num], c as char)?;
                            arg_num += 1;
                            i += 1;
                            continue 'format;
                        }
                        break;
                    }
                }
                i += 1;
            }

            (arg_num, i, after_index) = self.arg_number(arg_num, format, i, args.len());

            (arg_num, i, after_index) = self.parse_width(format, i, args, arg_num, after_index)?;
            if i + 1 < end && format[i] == b'.' {
                (arg_num, i, after_index) = self.parse_precision(format, i + 1, args, arg_num, after_index)?;
            }

            if !after_index {
                (arg_num, i, _) = self.arg_number(arg_num, format, i, args.len());
            }

            if i >= end {
                self.write_str("%!(NOVERB)")?;
                break;
            }

            let (verb, size) = verb_at(&format[i..]);
            i += size;

            if verb == '%' {
                self.write(b"%")?;
            } else if !self.good_arg_num {
                self.write_str(&format!("%!{verb}(BADINDEX)"))?;
            } else if arg_num >= args.len() {
                self.write_str(&format!("%!{verb}(MISSING)"))?;
            } else {
                self.print_verb(&args[arg_num], verb)?;
                arg_num += 1;
            }
        }

        if !self.reordered && arg_num < args.len() {
            self.write_extra(&args[arg_num..])?;
        }
        Ok(())
    }

    /// The width at `i`: from the next argument (`*`, a negative one left-justifies) or the format's digits.
    /// Returns the argument number, the index after the width and whether an `[n]` index was just read.
    fn parse_width(
        &mut self,
        format: &[u8],
        mut i: usize,
        args: &[GoValue],
        mut arg_num: usize,
        mut after_index: bool,
    ) -> Result<(usize, usize, bool), String> {
        if i < format.len() && format[i] == b'*' {
            i += 1;
            let (wid, present, next) = int_from_arg(args, arg_num);
            arg_num = next;
            self.f.wid_present = present;
            if !present {
                self.write_str("%!(BADWIDTH)")?;
            }
            if wid < 0 {
                self.f.minus = true;
                self.f.zero = false;
            }
            self.f.wid = wid.unsigned_abs() as usize;
            after_index = false;
        } else {
            let (wid, present, next) = parse_num(format, i, format.len());
            (self.f.wid, self.f.wid_present, i) = (wid, present, next);
            if after_index && present {
                self.good_arg_num = false;
            }
        }
        Ok((arg_num, i, after_index))
    }

    /// The precision after the `.` (at `i`): an `[n]` index, then from the next argument (`*`, a negative one
    /// is none) or the format's digits (none is zero). Returns as [`Self::parse_width`] does.
    fn parse_precision(
        &mut self,
        format: &[u8],
        mut i: usize,
        args: &[GoValue],
        mut arg_num: usize,
        mut after_index: bool,
    ) -> Result<(usize, usize, bool), String> {
        let end = format.len();
        if after_index {
            self.good_arg_num = false;
        }
        (arg_num, i, after_index) = self.arg_number(arg_num, format, i, args.len());
        if i < end && format[i] == b'*' {
            i += 1;
            let (prec, mut present, next) = int_from_arg(args, arg_num);
            arg_num = next;
            let mut prec = prec;
            if prec < 0 {
                prec = 0;
                present = false;
            }
            (self.f.prec, self.f.prec_present) = (prec as usize, present);
            if !present {
                self.write_str("%!(BADPREC)")?;
            }
            after_index = false;
        } else {
            let (prec, present, next) = parse_num(format, i, end);
            (self.f.prec, self.f.prec_present, i) = (prec, present, next);
            if !present {
                self.f.prec = 0;
                self.f.prec_present = true;
            }
        }
        Ok((arg_num, i, after_index))
    }

    /// Prints `arg` for `verb`; for `%v` and `%w` the `#` and `+` flags become `#v` and `+v`.
    fn print_verb(&mut self, arg: &GoValue, verb: char) -> Result<(), String> {
        if verb == 'v' || verb == 'w' {
            self.f.sharp_v = self.f.sharp;
            self.f.sharp = false;
            self.f.plus_v = self.f.plus;
            self.f.plus = false;
        }
        self.print_arg(arg, verb)
    }

    /// `%!(EXTRA type=value, ...)` for the arguments no verb used.
    fn write_extra(&mut self, extra: &[GoValue]) -> Result<(), String> {
        self.f = Flags::default();
        self.write_str("%!(EXTRA ")?;
        for (n, arg) in extra.iter().enumerate() {
            if n > 0 {
                self.write_str(", ")?;
            }
            if matches!(arg, GoValue::Missing | GoValue::Nil) {
                self.write_str("<nil>")?;
            } else {
                self.write_str(arg.type_name())?;
                self.write(b"=")?;
                self.print_arg(arg, 'v')?;
            }
        }
        self.write(b")")
    }

    /// Go's `printArg`: the argument is an `interface{}` at the top level.
    fn print_arg(&mut self, arg: &GoValue, verb: char) -> Result<(), String> {
        match arg {
            GoValue::Missing | GoValue::Nil => {
                return if verb == 'T' || verb == 'v' { self.pad_string("<nil>") } else { self.bad_verb(arg, verb) };
            }
            _ if verb == 'T' => return self.fmt_s(arg.type_name()),
            _ => {}
        }
        self.print_value(arg, verb, 0)
    }

    /// Go's `printValue` for the kinds template data holds; `depth` > 0 inside lists and maps,
    /// whose elements are `interface{}`.
    fn print_value(&mut self, value: &GoValue, verb: char, depth: usize) -> Result<(), String> {
        if depth > limits::MAX_VALUE_DEPTH {
            return Err(limits::value_too_deep());
        }
        if verb == 'p' {
            // Go prints the address of a map or slice; there is no address to print here.
            return self.bad_verb(value, verb);
        }
        match value {
            GoValue::Missing | GoValue::Nil => {
                if self.f.sharp_v {
                    self.write_str("interface {}(nil)")
                } else {
                    self.write_str("<nil>")
                }
            }
            GoValue::Bool(b) => match verb {
                't' | 'v' => self.pad_string(if *b { "true" } else { "false" }),
                _ => self.bad_verb(value, verb),
            },
            GoValue::Int(i) => self.fmt_int(*i, value, verb),
            GoValue::Float(x) => self.fmt_float_verb(*x, value, verb),
            GoValue::Str(s) => match verb {
                'v' if self.f.sharp_v => self.fmt_q(s),
                'v' | 's' => self.fmt_s(s),
                'x' => self.fmt_sx(s, false),
                'X' => self.fmt_sx(s, true),
                'q' => self.fmt_q(s),
                _ => self.bad_verb(value, verb),
            },
            GoValue::List(items) => {
                if self.f.sharp_v {
                    self.write_str("[]interface {}{")?;
                    for (n, item) in items.iter().enumerate() {
                        if n > 0 {
                            self.write_str(", ")?;
                        }
                        self.print_value(item, verb, depth + 1)?;
                    }
                    self.write(b"}")
                } else {
                    self.write(b"[")?;
                    for (n, item) in items.iter().enumerate() {
                        if n > 0 {
                            self.write(b" ")?;
                        }
                        self.print_value(item, verb, depth + 1)?;
                    }
                    self.write(b"]")
                }
            }
            GoValue::Map(map) => {
                self.write_str(if self.f.sharp_v { "map[string]interface {}{" } else { "map[" })?;
                for (n, (k, v)) in map.entries().iter().enumerate() {
                    if n > 0 {
                        self.write_str(if self.f.sharp_v { ", " } else { " " })?;
                    }
                    self.print_value(&GoValue::Str(k.clone()), verb, depth + 1)?;
                    self.write(b":")?;
                    self.print_value(v, verb, depth + 1)?;
                }
                self.write(if self.f.sharp_v { b"}" } else { b"]" })
            }
        }
    }

    /// Go's `badVerb`: `%!verb(type=value)`, the value printed with `%v` and the same flags.
    fn bad_verb(&mut self, arg: &GoValue, verb: char) -> Result<(), String> {
        self.write_str(&format!("%!{verb}("))?;
        match arg {
            GoValue::Missing | GoValue::Nil => self.write_str("<nil>")?,
            _ => {
                self.write_str(arg.type_name())?;
                self.write(b"=")?;
                self.print_value(arg, 'v', 0)?;
            }
        }
        self.write(b")")
    }

    fn write_padding(&mut self, n: usize) -> Result<(), String> {
        if n == 0 {
            return Ok(());
        }
        if self.buf.len() + n > limits::MAX_STRING_BYTES {
            return Err(limits::string_too_long("printf"));
        }
        let byte = if self.f.zero && !self.f.minus { b'0' } else { b' ' };
        self.buf.resize(self.buf.len() + n, byte);
        Ok(())
    }

    fn pad(&mut self, b: &[u8]) -> Result<(), String> {
        if !self.f.wid_present || self.f.wid == 0 {
            return self.write(b);
        }
        let runes = String::from_utf8_lossy(b).chars().count();
        let width = self.f.wid.saturating_sub(runes);
        if !self.f.minus {
            self.write_padding(width)?;
            self.write(b)
        } else {
            self.write(b)?;
            self.write_padding(width)
        }
    }

    fn pad_string(&mut self, s: &str) -> Result<(), String> {
        self.pad(s.as_bytes())
    }

    /// `truncateString`: at most `prec` runes.
    fn truncate<'s>(&self, s: &'s str) -> &'s str {
        if self.f.prec_present
            && let Some((i, _)) = s.char_indices().nth(self.f.prec)
        {
            return &s[..i];
        }
        s
    }

    fn fmt_s(&mut self, s: &str) -> Result<(), String> {
        let s = self.truncate(s);
        self.pad_string(s)
    }

    fn fmt_q(&mut self, s: &str) -> Result<(), String> {
        let s = self.truncate(s);
        if self.f.sharp && can_backquote(s) {
            return self.pad_string(&format!("`{s}`"));
        }
        let quoted = quote_with(s, '"', self.f.plus);
        self.pad_string(&quoted)
    }

    /// `fmtSbx` for a string: hex of its bytes.
    fn fmt_sx(&mut self, s: &str, upper: bool) -> Result<(), String> {
        let digits: &[u8; 16] = if upper { b"0123456789ABCDEF" } else { b"0123456789abcdef" };
        let x = if upper { b'X' } else { b'x' };
        let mut length = s.len();
        if self.f.prec_present && self.f.prec < length {
            length = self.f.prec;
        }
        let mut width = 2 * length;
        if width > 0 {
            if self.f.space {
                if self.f.sharp {
                    width *= 2;
                }
                width += length - 1;
            } else if self.f.sharp {
                width += 2;
            }
        } else {
            if self.f.wid_present {
                self.write_padding(self.f.wid)?;
            }
            return Ok(());
        }
        if self.f.wid_present && self.f.wid > width && !self.f.minus {
            self.write_padding(self.f.wid - width)?;
        }
        let mut out = Vec::with_capacity(width);
        if self.f.sharp {
            out.extend_from_slice(&[b'0', x]);
        }
        for (n, c) in s.bytes().take(length).enumerate() {
            if self.f.space && n > 0 {
                out.push(b' ');
                if self.f.sharp {
                    out.extend_from_slice(&[b'0', x]);
                }
            }
            out.extend_from_slice(&[digits[(c >> 4) as usize], digits[(c & 15) as usize]]);
        }
        self.write(&out)?;
        if self.f.wid_present && self.f.wid > width && self.f.minus {
            self.write_padding(self.f.wid - width)?;
        }
        Ok(())
    }

    fn fmt_int(&mut self, i: i64, value: &GoValue, verb: char) -> Result<(), String> {
        match verb {
            'v' | 'd' => self.fmt_integer(i, 10, verb, false),
            'b' => self.fmt_integer(i, 2, verb, false),
            'o' | 'O' => self.fmt_integer(i, 8, verb, false),
            'x' => self.fmt_integer(i, 16, verb, false),
            'X' => self.fmt_integer(i, 16, verb, true),
            'c' => {
                let c = rune_of(i);
                self.pad_string(c.encode_utf8(&mut [0; 4]))
            }
            'q' => {
                let quoted = quote_with(rune_of(i).encode_utf8(&mut [0; 4]), '\'', self.f.plus);
                self.pad_string(&quoted)
            }
            'U' => self.fmt_unicode(i),
            _ => self.bad_verb(value, verb),
        }
    }

    /// Go's `fmt.fmtInteger` for a signed value.
    fn fmt_integer(&mut self, v: i64, base: u64, verb: char, upper: bool) -> Result<(), String> {
        let digits: &[u8; 17] = if upper { b"0123456789ABCDEFX" } else { b"0123456789abcdefx" };
        let negative = v < 0;
        let mut u = v.unsigned_abs();
        let mut prec = 0usize;
        if self.f.prec_present {
            prec = self.f.prec;
            if prec == 0 && u == 0 {
                let zero = self.f.zero;
                self.f.zero = false;
                self.write_padding(self.f.wid)?;
                self.f.zero = zero;
                return Ok(());
            }
        } else if self.f.zero && !self.f.minus && self.f.wid_present {
            prec = self.f.wid;
            if negative || self.f.plus || self.f.space {
                prec = prec.saturating_sub(1);
            }
        }
        // Digits right to left, then reversed.
        let mut buf: Vec<u8> = Vec::with_capacity(prec.max(24) + 4);
        while u >= base {
            buf.push(digits[(u % base) as usize]);
            u /= base;
        }
        buf.push(digits[u as usize]);
        while prec > buf.len() {
            buf.push(b'0');
        }
        if self.f.sharp {
            match base {
                2 => buf.extend_from_slice(b"b0"),
                8 if buf.last() != Some(&b'0') => buf.push(b'0'),
                16 => buf.extend_from_slice(&[digits[16], b'0']),
                _ => {}
            }
        }
        if verb == 'O' {
            buf.extend_from_slice(b"o0");
        }
        if negative {
            buf.push(b'-');
        } else if self.f.plus {
            buf.push(b'+');
        } else if self.f.space {
            buf.push(b' ');
        }
        buf.reverse();
        let zero = self.f.zero;
        self.f.zero = false;
        let result = self.pad(&buf);
        self.f.zero = zero;
        result
    }

    /// `fmtUnicode`: `U+0041`, with `#` also the quoted character.
    fn fmt_unicode(&mut self, i: i64) -> Result<(), String> {
        let u = i as u64;
        let prec = if self.f.prec_present && self.f.prec > 4 { self.f.prec } else { 4 };
        let mut s = format!("U+{u:0prec$X}");
        if self.f.sharp
            && u <= 0x10ffff
            && let Some(c) = char::from_u32(u as u32).filter(|c| is_print(*c))
        {
            s.push_str(&format!(" '{c}'"));
        }
        let zero = self.f.zero;
        self.f.zero = false;
        let result = self.pad_string(&s);
        self.f.zero = zero;
        result
    }

    fn fmt_float_verb(&mut self, x: f64, value: &GoValue, verb: char) -> Result<(), String> {
        match verb {
            'v' => self.fmt_float(x, 'g', -1),
            'b' | 'g' | 'G' | 'x' | 'X' => self.fmt_float(x, verb, -1),
            'f' | 'e' | 'E' => self.fmt_float(x, verb, 6),
            'F' => self.fmt_float(x, 'f', 6),
            _ => self.bad_verb(value, verb),
        }
    }

    /// Go's `fmt.fmtFloat`.
    fn fmt_float(&mut self, v: f64, verb: char, prec: i64) -> Result<(), String> {
        let prec = if self.f.prec_present { self.f.prec as i64 } else { prec };
        let formatted = format_float(v, verb, prec);
        let mut num: Vec<u8> = Vec::with_capacity(formatted.len() + 1);
        if formatted.starts_with(['-', '+']) {
            num.extend_from_slice(formatted.as_bytes());
        } else {
            num.push(b'+');
            num.extend_from_slice(formatted.as_bytes());
        }
        if self.f.space && num[0] == b'+' && !self.f.plus {
            num[0] = b' ';
        }
        if num[1] == b'I' || num[1] == b'N' {
            let zero = self.f.zero;
            self.f.zero = false;
            if num[1] == b'N' && !self.f.space && !self.f.plus {
                num.remove(0);
            }
            let result = self.pad(&num);
            self.f.zero = zero;
            return result;
        }
        if self.f.sharp && verb != 'b' {
            let mut digits: i64 = 0;
            if matches!(verb, 'v' | 'g' | 'G' | 'x') {
                digits = if prec == -1 { 6 } else { prec };
            }
            let mut tail: Vec<u8> = Vec::new();
            let mut has_point = false;
            let mut saw_nonzero = false;
            let mut i = 1;
            while i < num.len() {
                match num[i] {
                    b'.' => has_point = true,
                    b'p' | b'P' => {
                        tail.extend_from_slice(&num[i..]);
                        num.truncate(i);
                        break;
                    }
                    b'e' | b'E' if verb != 'x' && verb != 'X' => {
                        tail.extend_from_slice(&num[i..]);
                        num.truncate(i);
                        break;
                    }
                    c => {
                        if c != b'0' {
                            saw_nonzero = true;
                        }
                        if saw_nonzero {
                            digits -= 1;
                        }
                    }
                }
                i += 1;
            }
            if !has_point {
                if num.len() == 2 && num[1] == b'0' {
                    digits -= 1;
                }
                num.push(b'.');
            }
            while digits > 0 {
                num.push(b'0');
                digits -= 1;
            }
            num.extend_from_slice(&tail);
        }
        if self.f.plus || num[0] != b'+' {
            if self.f.zero && !self.f.minus && self.f.wid_present && self.f.wid > num.len() {
                self.write(&num[..1])?;
                self.write_padding(self.f.wid - num.len())?;
                return self.write(&num[1..]);
            }
            return self.pad(&num);
        }
        self.pad(&num[1..])
    }
}

/// The rune Go prints for an integer (`%c`, `%q`): invalid code points become U+FFFD.
fn rune_of(i: i64) -> char {
    u32::try_from(i).ok().and_then(char::from_u32).unwrap_or('\u{fffd}')
}

/// Decimal digits of |v| (no trailing zeros) and the decimal point position, like strconv's
/// `decimalSlice`: `sig` significant digits, or the shortest that round-trip when `None`.
fn decimal_digits(v: f64, sig: Option<usize>) -> (Vec<u8>, i64) {
    let a = v.abs();
    if a == 0.0 {
        return (Vec::new(), 0);
    }
    let sci = match sig {
        Some(n) => format!("{:.*e}", n.saturating_sub(1), a),
        None => format!("{a:e}"),
    };
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i64 = exp.parse().unwrap_or(0);
    let mut digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    (digits, exp + 1)
}

/// `strconv`'s `%e`: d.ddde±dd with `prec` decimals.
fn fmt_e(out: &mut String, digits: &[u8], dp: i64, prec: usize, e: char) {
    out.push(digits.first().map_or('0', |d| *d as char));
    if prec > 0 {
        out.push('.');
        for i in 1..=prec {
            out.push(digits.get(i).map_or('0', |d| *d as char));
        }
    }
    out.push(e);
    let exp = if digits.is_empty() { 0 } else { dp - 1 };
    out.push(if exp < 0 { '-' } else { '+' });
    let exp = exp.abs();
    if exp < 10 {
        out.push('0');
    }
    out.push_str(&exp.to_string());
}

/// `strconv`'s `%f`: integer part, then `prec` decimals.
fn fmt_f(out: &mut String, digits: &[u8], dp: i64, prec: usize) {
    if dp > 0 {
        for i in 0..dp as usize {
            out.push(digits.get(i).map_or('0', |d| *d as char));
        }
    } else {
        out.push('0');
    }
    if prec > 0 {
        out.push('.');
        for i in 1..=prec as i64 {
            let j = dp + i - 1;
            out.push(if (0..digits.len() as i64).contains(&j) { digits[j as usize] as char } else { '0' });
        }
    }
}

/// `strconv.FormatFloat(v, fmt, prec, 64)`.
pub(super) fn format_float(v: f64, fmt: char, prec: i64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "+Inf".into() } else { "-Inf".into() };
    }
    let mut out = String::new();
    if v.is_sign_negative() {
        out.push('-');
    }
    match fmt {
        'b' => {
            let bits = v.to_bits();
            let mut exp = ((bits >> 52) & 0x7ff) as i64;
            let mut mant = bits & ((1 << 52) - 1);
            if exp == 0 {
                exp += 1;
            } else {
                mant |= 1 << 52;
            }
            exp += -1023 - 52;
            out.push_str(&format!("{mant}p{}{}", if exp >= 0 { "+" } else { "" }, exp));
        }
        'x' | 'X' => out.push_str(&fmt_hex_float(v, fmt, prec)),
        'e' | 'E' => {
            let (digits, dp) = decimal_digits(v, if prec < 0 { None } else { Some(prec as usize + 1) });
            let prec = if prec < 0 { digits.len().saturating_sub(1) } else { prec as usize };
            fmt_e(&mut out, &digits, dp, prec, fmt);
        }
        'f' => {
            if prec < 0 {
                let (digits, dp) = decimal_digits(v, None);
                fmt_f(&mut out, &digits, dp, (digits.len() as i64 - dp).max(0) as usize);
            } else {
                out.push_str(&format!("{:.*}", prec as usize, v.abs()));
            }
        }
        _ => {
            // 'g' / 'G'
            if prec < 0 {
                let g = format_float_g(v.abs());
                return if fmt == 'G' { format!("{out}{}", g.to_uppercase()) } else { format!("{out}{g}") };
            }
            let mut prec = (prec as usize).max(1);
            let (digits, dp) = decimal_digits(v, Some(prec));
            let nd = digits.len() as i64;
            let mut eprec = prec as i64;
            if eprec > nd && nd >= dp {
                eprec = nd;
            }
            let exp = dp - 1;
            if exp < -4 || exp >= eprec {
                if prec as i64 > nd {
                    prec = nd as usize;
                }
                fmt_e(&mut out, &digits, dp, prec.saturating_sub(1), if fmt == 'G' { 'E' } else { 'e' });
            } else {
                if prec as i64 > dp {
                    prec = nd as usize;
                }
                fmt_f(&mut out, &digits, dp, (prec as i64 - dp).max(0) as usize);
            }
        }
    }
    out
}

/// `strconv`'s `%x` for a float64: -0x1.yyyyp±dd.
fn fmt_hex_float(v: f64, fmt: char, prec: i64) -> String {
    let bits = v.to_bits();
    let mut exp = ((bits >> 52) & 0x7ff) as i64;
    let mut mant = bits & ((1 << 52) - 1);
    if exp == 0 {
        exp += 1;
    } else {
        mant |= 1 << 52;
    }
    exp -= 1023;
    if mant == 0 {
        exp = 0;
    }
    mant <<= 60 - 52;
    while mant != 0 && mant & (1 << 60) == 0 {
        mant <<= 1;
        exp -= 1;
    }
    if (0..15).contains(&prec) {
        let shift = (prec * 4) as u32;
        let extra = (mant << shift) & ((1 << 60) - 1);
        mant >>= 60 - shift;
        if extra | (mant & 1) > 1 << 59 {
            mant += 1;
        }
        mant <<= 60 - shift;
        if mant & (1 << 61) != 0 {
            mant >>= 1;
            exp += 1;
        }
    }
    let hex: &[u8; 16] = if fmt == 'X' { b"0123456789ABCDEF" } else { b"0123456789abcdef" };
    let mut out = String::from("0");
    out.push(fmt);
    out.push((b'0' + ((mant >> 60) & 1) as u8) as char);
    mant <<= 4;
    if prec < 0 && mant != 0 {
        out.push('.');
        while mant != 0 {
            out.push(hex[((mant >> 60) & 15) as usize] as char);
            mant <<= 4;
        }
    } else if prec > 0 {
        out.push('.');
        for _ in 0..prec {
            out.push(hex[((mant >> 60) & 15) as usize] as char);
            mant <<= 4;
        }
    }
    out.push(if fmt == 'X' { 'P' } else { 'p' });
    out.push(if exp < 0 { '-' } else { '+' });
    let exp = exp.abs();
    if exp < 10 {
        out.push('0');
    }
    out.push_str(&exp.to_string());
    out
}
/// The verb at the start of `rest` (UTF-8, U+FFFD for an invalid byte) and its length in bytes.
fn verb_at(rest: &[u8]) -> (char, usize) {
    let verb = match std::str::from_utf8(&rest[..rest.len().min(4)]) {
        Ok(s) => s.chars().next(),
        Err(e) => std::str::from_utf8(&rest[..e.valid_up_to()]).ok().and_then(|s| s.chars().next()),
    };
    match verb {
        Some(c) => (c, c.len_utf8()),
        None => ('\u{fffd}', 1),
    }
}

//! `${VAR}` templates exactly as clusterctl processes them: a port of github.com/drone/envsubst/v2 at
//! the version clusterctl pins (v2.0.0-20210730161058-179042472c46), plus clusterctl's own layer
//! (`yamlprocessor.SimpleProcessor`): the legacy `${ VAR }` rewrite, variable inspection, the
//! missing-variable check.
//!
//! The port keeps upstream's quirks on purpose (they are checked against clusterctl itself by
//! `tests/referee/envsubst_conformance.rs`): every default operator (`= := :- :? :+`) means "value if
//! non-empty, else the default"; `${V-d}` and `${V+d}` are parse errors; lengths, offsets and trims
//! work on bytes, so they can cut a multi-byte character; a NUL character ends the template; only
//! `${` starts an expression and `$$` is `$` at top level. The one deliberate difference: a negative
//! substring length makes upstream panic (clusterctl crashes); here it is an [`EvalError`].

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

/// Why a template could not be parsed; the messages are upstream's, word for word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ParseErrorKind {
    #[error("bad substitution")]
    BadSubstitution,
    #[error("missing closing brace")]
    MissingClosingBrace,
    #[error("unable to parse variable name")]
    ParseVariableName,
    #[error("unable to parse substitution within function")]
    ParseFuncSubstitution,
    #[error("unable to parse default function")]
    ParseDefaultFunction,
    /// Our limit, not upstream's: `${A:=${B:=...}}` nested deeper than [`MAX_NESTING`].
    #[error("substitutions nested more than {MAX_NESTING} deep (kubectl-capz's limit)")]
    TooDeeplyNested,
}

/// How deep `${...}` expressions may nest inside each other's arguments. Upstream recurses
/// without a limit (and the parse recursion would overflow our stack long before Go's).
pub const MAX_NESTING: usize = 100;

/// A parse error and where the failing `${...}` expression starts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {kind}")]
pub struct ParseError {
    pub kind: ParseErrorKind,
    /// 1-based line of the `${` that starts the expression (in the text given to [`parse`]).
    pub line: usize,
    /// 1-based column (in characters) of that `${`.
    pub column: usize,
}

/// Errors while substituting a parsed template.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// `${V:offset:length}` whose slice would end before it starts: upstream panics here.
    #[error(
        "`${{{param}:{offset}:{length}}}` has a negative length for a value of {value_len} bytes \
         (clusterctl crashes with \"slice bounds out of range\" on this)"
    )]
    NegativeSubstringLength { param: String, offset: String, length: String, value_len: usize },
    /// A substring or trim cut a multi-byte character, so the result is not text.
    #[error("the substituted text is not valid UTF-8 (a substring or trim cut a multi-byte character)")]
    InvalidUtf8,
}

/// What clusterctl's `Process` reports.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProcessError {
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// Variables without a value and without a default; sorted, all of them.
    #[error(
        "value for variables [{}] is not set. Please set the value using os environment variables or the clusterctl config file",
        .0.join(", ")
    )]
    Missing(Vec<String>),
    #[error(transparent)]
    Eval(#[from] EvalError),
}

/// One node of a parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// Literal text (escapes already applied).
    Text(String),
    /// A `${...}` expression.
    Func(FuncNode),
}

/// A `${param<name>args}` expression: `name` is the operator (`:=`, `#`, `//`, ...; empty for `${V}`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FuncNode {
    pub param: String,
    pub name: String,
    pub args: Vec<Node>,
}

/// A parsed template: the top-level nodes, in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Template {
    pub nodes: Vec<Node>,
}

/// A variable as clusterctl lists it: the default is the text of its first occurrence's arguments,
/// with nested expressions written `${NAME}`; `None` means required.
pub type VariableMap = BTreeMap<String, Option<String>>;

// ---------------------------------------------------------------------------------------------
// clusterctl layer (yamlprocessor/simple_processor.go)

static LEGACY_VARIABLE: LazyLock<Regex> = LazyLock::new(|| {
    // clusterctl's legacyVariableRegEx, with Go's ASCII-only `\s` spelled out.
    Regex::new(concat!(
        r"(\$\{([\t\n\f\r ]+([A-Za-z0-9_$]+)[\t\n\f\r ]+)\})",
        r"|(\$\{([\t\n\f\r ]+([A-Za-z0-9_$]+))\})",
        r"|(\$\{(([A-Za-z0-9_$]+)[\t\n\f\r ]+)\})"
    ))
    .expect("legacy variable regex is valid")
});

/// clusterctl's `convertLegacyVars`: `${ VAR}`, `${VAR }` and `${ VAR }` become `${VAR}`.
pub fn convert_legacy_vars(text: &str) -> Cow<'_, str> {
    LEGACY_VARIABLE.replace_all(text, |caps: &regex::Captures<'_>| {
        caps[0].chars().filter(|c| !matches!(c, '\t' | '\n' | '\x0c' | '\r' | ' ')).collect::<String>()
    })
}

/// clusterctl's `GetVariableMap`: every top-level variable with its default (`None` = required).
pub fn variable_map(text: &str) -> Result<VariableMap, ParseError> {
    let template = parse(&convert_legacy_vars(text))?;
    Ok(template.variables())
}

/// clusterctl's `Process`: fails with every missing variable at once (unset and no default),
/// otherwise substitutes, with "" for names `lookup` does not know.
pub fn process(text: &str, lookup: impl Fn(&str) -> Option<String>) -> Result<String, ProcessError> {
    let bytes = process_bytes(text, lookup)?;
    String::from_utf8(bytes).map_err(|_| ProcessError::Eval(EvalError::InvalidUtf8))
}

/// [`process`], returning the raw bytes (which a cut multi-byte character can make invalid UTF-8).
pub fn process_bytes(text: &str, lookup: impl Fn(&str) -> Option<String>) -> Result<Vec<u8>, ProcessError> {
    let template = parse(&convert_legacy_vars(text))?;
    let mut missing: Vec<String> = template
        .variables()
        .into_iter()
        .filter(|(name, default)| default.is_none() && lookup(name).is_none())
        .map(|(name, _)| name)
        .collect();
    if !missing.is_empty() {
        missing.sort();
        return Err(ProcessError::Missing(missing));
    }
    Ok(template.execute_bytes(|name| lookup(name).unwrap_or_default())?)
}

impl Template {
    /// clusterctl's `inspectVariables`: top-level expressions only, the first occurrence of a name wins.
    pub fn variables(&self) -> VariableMap {
        let mut variables = VariableMap::new();
        for node in &self.nodes {
            let Node::Func(func) = node else { continue };
            if variables.contains_key(&func.param) {
                continue;
            }
            let mut default = String::new();
            for arg in &func.args {
                match arg {
                    Node::Func(nested) => {
                        default.push_str("${");
                        default.push_str(&nested.param);
                        default.push('}');
                    }
                    Node::Text(text) => default.push_str(text),
                }
            }
            variables.insert(func.param.clone(), (!default.is_empty()).then_some(default));
        }
        variables
    }

    /// Substitutes every expression; `lookup` gives a name's value ("" when unknown).
    pub fn execute(&self, lookup: impl Fn(&str) -> String) -> Result<String, EvalError> {
        String::from_utf8(self.execute_bytes(lookup)?).map_err(|_| EvalError::InvalidUtf8)
    }

    /// [`Template::execute`], returning raw bytes as upstream does (it may cut a character).
    pub fn execute_bytes(&self, lookup: impl Fn(&str) -> String) -> Result<Vec<u8>, EvalError> {
        let mut out = Vec::new();
        for node in &self.nodes {
            eval_node(node, &lookup, &mut out)?;
        }
        Ok(out)
    }
}

// ---------------------------------------------------------------------------------------------
// Evaluation (template.go, funcs.go)

fn eval_node(node: &Node, lookup: &dyn Fn(&str) -> String, out: &mut Vec<u8>) -> Result<(), EvalError> {
    match node {
        Node::Text(text) => out.extend_from_slice(text.as_bytes()),
        Node::Func(func) => {
            let mut args = Vec::with_capacity(func.args.len());
            for arg in &func.args {
                let mut buf = Vec::new();
                eval_node(arg, lookup, &mut buf)?;
                args.push(buf);
            }
            let value = lookup(&func.param);
            out.extend(apply(func, value.as_bytes(), &args)?);
        }
    }
    Ok(())
}

/// upstream `lookupFunc` and the function it returns.
fn apply(func: &FuncNode, s: &[u8], args: &[Vec<u8>]) -> Result<Vec<u8>, EvalError> {
    Ok(match func.name.as_str() {
        "," => map_first_rune(s, simple_lower),
        ",," => map_runes(s, simple_lower),
        "^" => map_first_rune(s, simple_upper),
        "^^" => map_runes(s, simple_upper),
        "#" if args.is_empty() => s.len().to_string().into_bytes(),
        "#" => trim_shortest(s, &args[0]),
        "##" => trim_longest(s, &args[0]),
        "%" => reverse(&trim_shortest(&reverse(s), &reverse(&args[0]))),
        "%%" => reverse(&trim_longest(&reverse(s), &reverse(&args[0]))),
        ":" => substring(func, s, args)?,
        "/#" => match args {
            [old, new] if s.starts_with(old) => go_replace(s, old, new, 1),
            _ => s.to_vec(),
        },
        "/%" => match args {
            [old, new] if s.ends_with(old) => {
                let mut out = s[..s.len() - old.len()].to_vec();
                out.extend_from_slice(new);
                out
            }
            _ => s.to_vec(),
        },
        "/" => match args {
            [] => s.to_vec(),
            [old] => go_replace(s, old, b"", 1),
            [old, new, ..] => go_replace(s, old, new, 1),
        },
        "//" => match args {
            [] => s.to_vec(),
            [old] => go_replace(s, old, b"", -1),
            [old, new, ..] => go_replace(s, old, new, -1),
        },
        // "=", ":=", ":-", ":?", ":+", "-", "+" and anything else: toDefault.
        _ => {
            if s.is_empty() && !args.is_empty() {
                args.concat()
            } else {
                s.to_vec()
            }
        }
    })
}

/// Go's `strconv.Atoi` on 64-bit: optional sign, decimal digits, in range.
fn atoi(bytes: &[u8]) -> Option<i64> {
    std::str::from_utf8(bytes).ok()?.parse::<i64>().ok()
}

/// upstream `toSubstr` (byte offsets; bash-like negative offsets).
fn substring(func: &FuncNode, s: &[u8], args: &[Vec<u8>]) -> Result<Vec<u8>, EvalError> {
    let Some(first) = args.first() else { return Ok(s.to_vec()) };
    let Some(mut pos) = atoi(first) else { return Ok(s.to_vec()) };
    let len = s.len() as i64;
    if pos < 0 {
        pos = (len + pos).max(0);
    }
    let tail = |pos: i64| if pos < len { s[pos as usize..].to_vec() } else { Vec::new() };
    let Some(second) = args.get(1) else { return Ok(tail(pos)) };
    let Some(length) = atoi(second) else { return Ok(s.to_vec()) };
    let end = pos.wrapping_add(length);
    if end >= len {
        return Ok(tail(pos));
    }
    if end < pos {
        return Err(EvalError::NegativeSubstringLength {
            param: func.param.clone(),
            offset: String::from_utf8_lossy(first).into_owned(),
            length: String::from_utf8_lossy(second).into_owned(),
            value_len: s.len(),
        });
    }
    Ok(s[pos as usize..end as usize].to_vec())
}

/// Go's `strings.Replace(s, old, new, n)`, `n < 0` meaning all.
fn go_replace(s: &[u8], old: &[u8], new: &[u8], n: i64) -> Vec<u8> {
    if old == new || n == 0 {
        return s.to_vec();
    }
    let count = if old.is_empty() { rune_count(s) + 1 } else { count_occurrences(s, old) };
    if count == 0 {
        return s.to_vec();
    }
    let n = if n < 0 || (count as i64) < n { count } else { n as usize };
    let mut out = Vec::with_capacity(s.len() + n * new.len());
    let mut start = 0;
    for i in 0..n {
        let mut j = start;
        if old.is_empty() {
            if i > 0 {
                j += decode_rune(&s[start..]).1;
            }
        } else {
            j += find(&s[start..], old).unwrap_or(0);
        }
        out.extend_from_slice(&s[start..j]);
        out.extend_from_slice(new);
        start = j + old.len();
    }
    out.extend_from_slice(&s[start..]);
    out
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn count_occurrences(s: &[u8], sep: &[u8]) -> usize {
    let mut count = 0;
    let mut rest = s;
    while let Some(i) = find(rest, sep) {
        count += 1;
        rest = &rest[i + sep.len()..];
    }
    count
}

fn rune_count(s: &[u8]) -> usize {
    let mut count = 0;
    let mut rest = s;
    while !rest.is_empty() {
        rest = &rest[decode_rune(rest).1..];
        count += 1;
    }
    count
}

/// upstream `trimShortest`: removes the shortest non-empty prefix matching the glob.
fn trim_shortest(s: &[u8], pattern: &[u8]) -> Vec<u8> {
    let mut shortest = None;
    for i in 0..s.len() {
        let prefix = &s[..s.len() - i];
        match glob_match(pattern, prefix) {
            Err(()) => return s.to_vec(),
            Ok(true) => shortest = Some(prefix.len()),
            Ok(false) => {}
        }
    }
    match shortest {
        Some(n) => s[n..].to_vec(),
        None => s.to_vec(),
    }
}

/// upstream `trimLongest`: removes the longest prefix matching the glob.
fn trim_longest(s: &[u8], pattern: &[u8]) -> Vec<u8> {
    for i in 0..s.len() {
        let prefix = &s[..s.len() - i];
        match glob_match(pattern, prefix) {
            Err(()) => return s.to_vec(),
            Ok(true) => return s[prefix.len()..].to_vec(),
            Ok(false) => {}
        }
    }
    s.to_vec()
}

/// upstream `reverse`: by runes, invalid bytes becoming U+FFFD.
fn reverse(s: &[u8]) -> Vec<u8> {
    let mut runes = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        let (r, n) = decode_rune(rest);
        runes.push(r);
        rest = &rest[n..];
    }
    runes.iter().rev().collect::<String>().into_bytes()
}

/// Go's `utf8.DecodeRuneInString`: (U+FFFD, 1) on an invalid byte, (U+FFFD, 0) at the end.
fn decode_rune(b: &[u8]) -> (char, usize) {
    let Some(&first) = b.first() else { return ('\u{FFFD}', 0) };
    let n = match first {
        0x00..=0x7F => return (first as char, 1),
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return ('\u{FFFD}', 1),
    };
    match b.get(..n).map(std::str::from_utf8) {
        Some(Ok(text)) => (text.chars().next().unwrap_or('\u{FFFD}'), n),
        _ => ('\u{FFFD}', 1),
    }
}

/// Go's `unicode.ToLower` (simple case mapping: one rune to one rune).
fn simple_lower(c: char) -> char {
    if c == '\u{130}' {
        return 'i';
    }
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

/// Go's `unicode.ToUpper` (simple case mapping: one rune to one rune).
fn simple_upper(c: char) -> char {
    let mut upper = c.to_uppercase();
    if let (Some(u), None) = (upper.next(), upper.next()) {
        return u;
    }
    // Full mappings with several characters; the simple mapping exists only for Greek letters
    // with ypogegrammeni (U+1F80..U+1FAF, U+1FB3, U+1FC3, U+1FF3), which map to the prosgegrammeni forms.
    match c as u32 {
        0x1F80..=0x1F87 | 0x1F90..=0x1F97 | 0x1FA0..=0x1FA7 => char::from_u32(c as u32 + 8).unwrap_or(c),
        0x1FB3 => '\u{1FBC}',
        0x1FC3 => '\u{1FCC}',
        0x1FF3 => '\u{1FFC}',
        _ => c,
    }
}

/// Go's `strings.Map(f, s)` for case mappings (s is always a looked-up value, so valid UTF-8).
fn map_runes(s: &[u8], f: fn(char) -> char) -> Vec<u8> {
    String::from_utf8_lossy(s).chars().map(f).collect::<String>().into_bytes()
}

fn map_first_rune(s: &[u8], f: fn(char) -> char) -> Vec<u8> {
    if s.is_empty() {
        return Vec::new();
    }
    let (r, n) = decode_rune(s);
    let mut out = f(r).to_string().into_bytes();
    out.extend_from_slice(&s[n..]);
    out
}

// ---------------------------------------------------------------------------------------------
// Globs (envsubst's own copy of an old path.Match: `*` and `?` also match `/`)

fn glob_match(mut pattern: &[u8], mut name: &[u8]) -> Result<bool, ()> {
    'pattern: while !pattern.is_empty() {
        let (star, chunk, rest) = scan_chunk(pattern);
        pattern = rest;
        if star && chunk.is_empty() {
            return Ok(true);
        }
        let matched = match_chunk(chunk, name);
        if let Ok(Some(t)) = matched
            && (t.is_empty() || !pattern.is_empty())
        {
            name = t;
            continue;
        }
        matched?;
        if star {
            for i in 0..name.len() {
                match match_chunk(chunk, &name[i + 1..])? {
                    Some(t) if pattern.is_empty() && !t.is_empty() => continue,
                    Some(t) => {
                        name = t;
                        continue 'pattern;
                    }
                    None => {}
                }
            }
        }
        return Ok(false);
    }
    Ok(name.is_empty())
}

fn scan_chunk(mut pattern: &[u8]) -> (bool, &[u8], &[u8]) {
    let mut star = false;
    while let [b'*', rest @ ..] = pattern {
        pattern = rest;
        star = true;
    }
    let mut in_range = false;
    let mut i = 0;
    while i < pattern.len() {
        match pattern[i] {
            b'\\' if i + 1 < pattern.len() => i += 1,
            b'[' => in_range = true,
            b']' => in_range = false,
            b'*' if !in_range => break,
            _ => {}
        }
        i += 1;
    }
    (star, &pattern[..i], &pattern[i..])
}

/// Matches a star-free chunk at the start of `s`: `Ok(Some(rest))`, `Ok(None)` or a bad pattern.
fn match_chunk<'a>(mut chunk: &[u8], mut s: &'a [u8]) -> Result<Option<&'a [u8]>, ()> {
    while let Some(&c) = chunk.first() {
        if s.is_empty() {
            return Ok(None);
        }
        match c {
            b'[' => {
                let (r, n) = decode_rune(s);
                s = &s[n..];
                chunk = &chunk[1..];
                let mut not_negated = true;
                if chunk.first() == Some(&b'^') {
                    not_negated = false;
                    chunk = &chunk[1..];
                }
                let mut matched = false;
                let mut ranges = 0;
                loop {
                    if chunk.first() == Some(&b']') && ranges > 0 {
                        chunk = &chunk[1..];
                        break;
                    }
                    let (lo, rest) = get_esc(chunk)?;
                    chunk = rest;
                    let mut hi = lo;
                    if chunk.first() == Some(&b'-') {
                        let (h, rest) = get_esc(&chunk[1..])?;
                        hi = h;
                        chunk = rest;
                    }
                    if lo <= r && r <= hi {
                        matched = true;
                    }
                    ranges += 1;
                }
                if matched != not_negated {
                    return Ok(None);
                }
            }
            b'?' => {
                s = &s[decode_rune(s).1..];
                chunk = &chunk[1..];
            }
            _ => {
                if c == b'\\' {
                    chunk = &chunk[1..];
                    if chunk.is_empty() {
                        return Err(());
                    }
                }
                if chunk[0] != s[0] {
                    return Ok(None);
                }
                s = &s[1..];
                chunk = &chunk[1..];
            }
        }
    }
    Ok(Some(s))
}

fn get_esc(mut chunk: &[u8]) -> Result<(char, &[u8]), ()> {
    match chunk.first() {
        None | Some(b'-') | Some(b']') => return Err(()),
        Some(b'\\') => {
            chunk = &chunk[1..];
            if chunk.is_empty() {
                return Err(());
            }
        }
        _ => {}
    }
    let (r, n) = decode_rune(chunk);
    let rest = &chunk[n..];
    if (r == '\u{FFFD}' && n == 1) || rest.is_empty() {
        return Err(());
    }
    Ok((r, rest))
}

// ---------------------------------------------------------------------------------------------
// Scanner (parse/scan.go). Positions are byte offsets; `skip` removes an escape character from the
// buffer exactly as upstream does (the scanner then stands after the escaped character).

const EOF: char = '\0';

const SCAN_IDENT: u8 = 1;
const SCAN_LBRACK: u8 = 2;
const SCAN_RBRACK: u8 = 4;
const SCAN_ESCAPE: u8 = 8;

const ESCAPE_DOLLAR: u8 = 1;
const ESCAPE_BACKSLASH: u8 = 2;
const ESCAPE_ALL: u8 = ESCAPE_DOLLAR | ESCAPE_BACKSLASH;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    Illegal,
    Eof,
    Ident,
    Lbrack,
    Rbrack,
}

type Accept = fn(char, usize) -> bool;

struct Scanner {
    buf: Vec<u8>,
    pos: usize,
    start: usize,
    width: usize,
    mode: u8,
    escape_chars: u8,
    accept: Accept,
    /// Bytes removed by `skip` so far (all before `pos`), to map positions back to the input.
    removed: usize,
}

impl Scanner {
    fn read(&mut self) -> char {
        if self.pos >= self.buf.len() {
            self.width = 0;
            return EOF;
        }
        let (r, w) = decode_rune(&self.buf[self.pos..]);
        self.width = w;
        self.pos += w;
        r
    }

    fn unread(&mut self) {
        self.pos = self.pos.saturating_sub(self.width);
    }

    fn skip(&mut self) {
        self.buf.remove(self.pos - 1);
        self.removed += 1;
    }

    fn peek(&mut self) -> char {
        let r = self.read();
        self.unread();
        r
    }

    fn string(&self) -> String {
        String::from_utf8_lossy(&self.buf[self.start.min(self.pos)..self.pos]).into_owned()
    }

    fn scan(&mut self) -> Token {
        self.start = self.pos;
        let r = self.read();
        if r == EOF {
            Token::Eof
        } else if self.scan_lbrack(r) {
            Token::Lbrack
        } else if self.scan_rbrack(r) {
            Token::Rbrack
        } else if self.scan_ident(r) {
            Token::Ident
        } else {
            Token::Illegal
        }
    }

    fn scan_ident(&mut self, r: char) -> bool {
        if self.mode & SCAN_IDENT == 0 {
            return false;
        }
        if self.scan_escaped(r) {
            self.skip();
        } else if !(self.accept)(r, self.pos - self.start) {
            return false;
        }
        loop {
            let r = self.read();
            if r == EOF {
                self.unread();
                break;
            }
            if self.scan_lbrack(r) {
                self.unread();
                self.unread();
                break;
            }
            if self.scan_escaped(r) {
                self.skip();
                continue;
            }
            if !(self.accept)(r, self.pos - self.start) {
                self.unread();
                break;
            }
        }
        true
    }

    fn scan_lbrack(&mut self, r: char) -> bool {
        if self.mode & SCAN_LBRACK == 0 {
            return false;
        }
        if r == '$' {
            if self.read() == '{' {
                return true;
            }
            self.unread();
        }
        false
    }

    fn scan_rbrack(&self, r: char) -> bool {
        self.mode & SCAN_RBRACK != 0 && r == '}'
    }

    fn scan_escaped(&mut self, r: char) -> bool {
        if self.mode & SCAN_ESCAPE == 0 {
            return false;
        }
        if r == '$' && self.escape_chars & ESCAPE_DOLLAR != 0 && self.peek() == '$' {
            return true;
        }
        if r == '\\' && self.escape_chars & ESCAPE_BACKSLASH != 0 {
            return matches!(self.peek(), '/' | '\\');
        }
        false
    }
}

fn accept_rune(_: char, _: usize) -> bool {
    true
}
fn accept_ident(r: char, _: usize) -> bool {
    is_go_letter_or_digit(r) || r == '_'
}
fn accept_colon(r: char, _: usize) -> bool {
    r == ':'
}
fn accept_one_hash(r: char, i: usize) -> bool {
    r == '#' && i == 1
}
fn accept_not_closing(r: char, _: usize) -> bool {
    r != '}'
}
fn accept_hash_func(r: char, i: usize) -> bool {
    r == '#' && i < 3
}
fn accept_percent_func(r: char, i: usize) -> bool {
    r == '%' && i < 3
}
fn accept_default_func(r: char, i: usize) -> bool {
    (i == 1 && r == ':') || (i == 2 && matches!(r, '=' | '-' | '?' | '+'))
}
fn accept_replace_func(r: char, i: usize) -> bool {
    (i == 1 && r == '/') || (i == 2 && matches!(r, '/' | '#' | '%'))
}
fn accept_one_equal(r: char, i: usize) -> bool {
    i == 1 && r == '='
}
fn accept_one_colon(r: char, i: usize) -> bool {
    i == 1 && r == ':'
}
fn reject_colon_close(r: char, _: usize) -> bool {
    r != ':' && r != '}'
}
fn accept_slash(r: char, _: usize) -> bool {
    r == '/'
}
fn accept_not_slash(r: char, _: usize) -> bool {
    r != '/'
}
fn accept_casing_func(r: char, i: usize) -> bool {
    (r == ',' || r == '^') && i < 3
}

static GO_LETTER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\p{L}$").expect("category regex is valid"));
static GO_DIGIT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\p{Nd}$").expect("category regex is valid"));

/// Go's `unicode.IsLetter` (general category L*).
pub(crate) fn is_go_letter(r: char) -> bool {
    if r.is_ascii() {
        return r.is_ascii_alphabetic();
    }
    let mut buf = [0u8; 4];
    GO_LETTER.is_match(r.encode_utf8(&mut buf))
}

/// Go's `unicode.IsDigit` (general category Nd).
pub(crate) fn is_go_digit(r: char) -> bool {
    if r.is_ascii() {
        return r.is_ascii_digit();
    }
    let mut buf = [0u8; 4];
    GO_DIGIT.is_match(r.encode_utf8(&mut buf))
}

fn is_go_letter_or_digit(r: char) -> bool {
    is_go_letter(r) || is_go_digit(r)
}

// ---------------------------------------------------------------------------------------------
// Parser (parse/parse.go)

struct Parser {
    s: Scanner,
    depth: usize,
}

type PResult<T> = Result<T, ParseErrorKind>;

/// Parses a template with drone/envsubst's grammar (no legacy `${ VAR }` rewrite; see
/// [`convert_legacy_vars`]). Any error fails the whole text, as upstream.
pub fn parse(text: &str) -> Result<Template, ParseError> {
    let mut p = Parser {
        s: Scanner {
            buf: text.as_bytes().to_vec(),
            pos: 0,
            start: 0,
            width: 0,
            mode: 0,
            escape_chars: 0,
            accept: accept_rune,
            removed: 0,
        },
        depth: 0,
    };
    let mut nodes = Vec::new();
    loop {
        p.s.accept = accept_rune;
        p.s.mode = SCAN_IDENT | SCAN_LBRACK | SCAN_ESCAPE;
        p.s.escape_chars = ESCAPE_DOLLAR;
        match p.s.scan() {
            Token::Ident => nodes.push(Node::Text(p.s.string())),
            Token::Eof => return Ok(Template { nodes }),
            Token::Lbrack => {
                let at = p.s.start + p.s.removed;
                match p.parse_func() {
                    Ok(node) => nodes.push(node),
                    Err(kind) => return Err(located(text, at, kind)),
                }
            }
            _ => return Err(located(text, p.s.start + p.s.removed, ParseErrorKind::BadSubstitution)),
        }
    }
}

fn located(text: &str, offset: usize, kind: ParseErrorKind) -> ParseError {
    let before = &text.as_bytes()[..offset.min(text.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&before[line_start..]).chars().count() + 1;
    ParseError { kind, line, column }
}

impl Parser {
    fn parse_func(&mut self) -> PResult<Node> {
        if self.depth >= MAX_NESTING {
            return Err(ParseErrorKind::TooDeeplyNested);
        }
        self.depth += 1;
        let node = self.parse_func_at_depth();
        self.depth -= 1;
        node
    }

    fn parse_func_at_depth(&mut self) -> PResult<Node> {
        self.s.escape_chars = ESCAPE_ALL;
        if self.s.peek() == '#' {
            return self.parse_len_func();
        }
        self.s.accept = accept_ident;
        self.s.mode = SCAN_IDENT;
        let name = match self.s.scan() {
            Token::Ident => self.s.string(),
            _ => return Err(ParseErrorKind::ParseVariableName),
        };
        match self.s.peek() {
            ':' => return self.parse_default_or_substr(name),
            '=' => return self.parse_default_func(name),
            ',' | '^' => return self.parse_casing_func(name),
            '/' => return self.parse_replace_func(name),
            '#' => return self.parse_remove_func(name, accept_hash_func),
            '%' => return self.parse_remove_func(name, accept_percent_func),
            _ => {}
        }
        self.s.accept = accept_ident;
        self.s.mode = SCAN_RBRACK;
        match self.s.scan() {
            Token::Rbrack => Ok(Node::Func(FuncNode { param: name, ..FuncNode::default() })),
            _ => Err(ParseErrorKind::MissingClosingBrace),
        }
    }

    fn parse_param(&mut self, accept: Accept, mode: u8) -> PResult<Node> {
        self.s.accept = accept;
        self.s.mode = mode | SCAN_LBRACK;
        match self.s.scan() {
            Token::Lbrack => self.parse_func(),
            Token::Ident | Token::Rbrack => Ok(Node::Text(self.s.string())),
            _ => Err(ParseErrorKind::ParseFuncSubstitution),
        }
    }

    fn parse_default_or_substr(&mut self, name: String) -> PResult<Node> {
        self.s.read();
        let r = self.s.peek();
        // Upstream unreads by the width of the peeked character, not of the ':' (kept on purpose).
        self.s.unread();
        match r {
            '=' | '-' | '?' | '+' => self.parse_default_func(name),
            _ => self.parse_substr_func(name),
        }
    }

    fn parse_substr_func(&mut self, param: String) -> PResult<Node> {
        let mut node = FuncNode { param, ..FuncNode::default() };
        self.s.accept = accept_one_colon;
        self.s.mode = SCAN_IDENT;
        match self.s.scan() {
            Token::Ident => node.name = self.s.string(),
            _ => return Err(ParseErrorKind::BadSubstitution),
        }
        node.args.push(self.parse_param(reject_colon_close, SCAN_IDENT)?);
        self.s.accept = accept_colon;
        self.s.mode = SCAN_IDENT | SCAN_RBRACK;
        match self.s.scan() {
            Token::Rbrack => return Ok(Node::Func(node)),
            Token::Ident => {}
            _ => return Err(ParseErrorKind::BadSubstitution),
        }
        node.args.push(self.parse_param(accept_not_closing, SCAN_IDENT)?);
        self.consume_rbrack()?;
        Ok(Node::Func(node))
    }

    fn parse_remove_func(&mut self, param: String, accept: Accept) -> PResult<Node> {
        let mut node = FuncNode { param, ..FuncNode::default() };
        self.s.accept = accept;
        self.s.mode = SCAN_IDENT;
        match self.s.scan() {
            Token::Ident => node.name = self.s.string(),
            _ => return Err(ParseErrorKind::BadSubstitution),
        }
        node.args.push(self.parse_param(accept_not_closing, SCAN_IDENT)?);
        self.consume_rbrack()?;
        Ok(Node::Func(node))
    }

    fn parse_replace_func(&mut self, param: String) -> PResult<Node> {
        let mut node = FuncNode { param, ..FuncNode::default() };
        self.s.accept = accept_replace_func;
        self.s.mode = SCAN_IDENT;
        match self.s.scan() {
            Token::Ident => node.name = self.s.string(),
            _ => return Err(ParseErrorKind::BadSubstitution),
        }
        node.args.push(self.parse_param(accept_not_slash, SCAN_IDENT | SCAN_ESCAPE)?);
        self.s.accept = accept_slash;
        self.s.mode = SCAN_IDENT;
        if self.s.scan() != Token::Ident {
            return Err(ParseErrorKind::BadSubstitution);
        }
        if self.s.peek() == '}' {
            self.consume_rbrack()?;
            return Ok(Node::Func(node));
        }
        node.args.push(self.parse_param(accept_not_closing, SCAN_IDENT | SCAN_ESCAPE)?);
        self.consume_rbrack()?;
        Ok(Node::Func(node))
    }

    fn parse_default_func(&mut self, param: String) -> PResult<Node> {
        let mut node = FuncNode { param, ..FuncNode::default() };
        self.s.accept = accept_default_func;
        if self.s.peek() == '=' {
            self.s.accept = accept_one_equal;
        }
        self.s.mode = SCAN_IDENT;
        match self.s.scan() {
            Token::Ident => node.name = self.s.string(),
            _ => return Err(ParseErrorKind::ParseDefaultFunction),
        }
        loop {
            if self.s.peek() == '}' {
                self.consume_rbrack()?;
                return Ok(Node::Func(node));
            }
            node.args.push(self.parse_param(accept_not_closing, SCAN_IDENT)?);
        }
    }

    fn parse_casing_func(&mut self, param: String) -> PResult<Node> {
        let mut node = FuncNode { param, ..FuncNode::default() };
        self.s.accept = accept_casing_func;
        self.s.mode = SCAN_IDENT;
        match self.s.scan() {
            Token::Ident => node.name = self.s.string(),
            _ => return Err(ParseErrorKind::BadSubstitution),
        }
        self.consume_rbrack()?;
        Ok(Node::Func(node))
    }

    fn parse_len_func(&mut self) -> PResult<Node> {
        let mut node = FuncNode::default();
        self.s.accept = accept_one_hash;
        self.s.mode = SCAN_IDENT;
        match self.s.scan() {
            Token::Ident => node.name = self.s.string(),
            _ => return Err(ParseErrorKind::BadSubstitution),
        }
        self.s.accept = accept_ident;
        self.s.mode = SCAN_IDENT;
        match self.s.scan() {
            Token::Ident => node.param = self.s.string(),
            _ => return Err(ParseErrorKind::BadSubstitution),
        }
        self.consume_rbrack()?;
        Ok(Node::Func(node))
    }

    fn consume_rbrack(&mut self) -> PResult<()> {
        self.s.mode = SCAN_RBRACK;
        if self.s.scan() != Token::Rbrack {
            return Err(ParseErrorKind::BadSubstitution);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(text: &str, env: &[(&str, &str)]) -> Result<String, ProcessError> {
        process(text, |name| env.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string()))
    }

    #[test]
    fn parse_errors_say_where_the_expression_starts() {
        let err = parse("a: 1\nb: x ${A-d}\n").unwrap_err();
        assert_eq!(err.kind, ParseErrorKind::MissingClosingBrace);
        assert_eq!((err.line, err.column), (2, 6));
        assert_eq!(err.to_string(), "line 2, column 6: missing closing brace");
    }

    #[test]
    fn negative_length_is_an_error_not_a_panic() {
        let err = eval("${A:1:-1}", &[("A", "abcdef")]).unwrap_err();
        assert!(matches!(err, ProcessError::Eval(EvalError::NegativeSubstringLength { .. })), "{err}");
        assert!(err.to_string().starts_with("`${A:1:-1}` has a negative length"), "{err}");
    }

    #[test]
    fn names_are_go_letters_and_digits() {
        for c in ['a', 'é', 'Ω', '名', 'ǅ', 'ª', '0', '٣', '９'] {
            assert!(is_go_letter_or_digit(c), "{c} is a letter or digit");
        }
        for c in ['Ⅻ', '\u{0301}', '_', '-', '²', '½', 'Ⓐ'] {
            assert!(!is_go_letter_or_digit(c), "{c} is neither");
        }
    }

    /// `${A:=${A:=...}}` 100,000 deep overflowed the stack of the parser (a crash, not an error).
    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let nested = |depth: usize| format!("x: {}v{}\n", "${A:=".repeat(depth), "}".repeat(depth));
        let err = parse(&nested(100_000)).unwrap_err();
        assert_eq!(err.kind, ParseErrorKind::TooDeeplyNested);
        assert_eq!((err.line, err.column), (1, 4));
        assert_eq!(err.to_string(), "line 1, column 4: substitutions nested more than 100 deep (kubectl-capz's limit)");
        assert_eq!(eval(&nested(MAX_NESTING), &[]).unwrap(), "x: v\n");
        assert!(parse(&nested(MAX_NESTING + 1)).is_err());
    }
}

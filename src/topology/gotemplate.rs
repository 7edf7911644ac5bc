//! A Go `text/template` subset with the hermetic sprig functions, as CAPI runs ClusterClass
//! `valueFrom.template` and `enabledIf` (`template.New("tpl").Funcs(sprig.HermeticTxtFuncMap())`).
//!
//! Supported: text and actions with `{{-`/`-}}` trimming and comments, pipelines, `.` field chains
//! (`.builtin.cluster.name`), variables (`$`, `$x := ...`, `$x = ...`), parenthesised pipelines,
//! `if/else if/else`, `range` (lists, maps in key order, integers, `break`/`continue`),
//! `with/else`, `define`/`template`/`block`, Go's builtin functions (and, or, not, len, index,
//! slice, print, printf, println, eq, ne, lt, le, gt, ge, urlquery, html, js) and the common
//! sprig functions (see [`FUNCTIONS`]). Values follow Go: JSON numbers are float64, literals are
//! int or float64, a missing map key prints `<no value>`, comparisons of int with float64 fail.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use base64::Engine as _;
use serde_json::Value;

/// A value during template execution, shaped like what `encoding/json` gives Go.
#[derive(Debug, Clone, PartialEq)]
pub enum GoValue {
    /// An invalid `reflect.Value`: a missing map key. Prints `<no value>`.
    Missing,
    /// A nil interface (JSON null).
    Nil,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<GoValue>),
    /// Go maps iterate and print in key order; like Go maps they are references, so sprig's
    /// `set`, `unset` and `merge` change the map every holder sees.
    Map(GoMap),
}

/// A Go `map[string]interface{}`: shared, mutable, ordered by key.
#[derive(Clone, Default)]
pub struct GoMap(std::rc::Rc<std::cell::RefCell<BTreeMap<String, GoValue>>>);

impl GoMap {
    pub fn new(map: BTreeMap<String, GoValue>) -> Self {
        GoMap(std::rc::Rc::new(std::cell::RefCell::new(map)))
    }
    pub fn get(&self, key: &str) -> Option<GoValue> {
        self.0.borrow().get(key).cloned()
    }
    pub fn contains_key(&self, key: &str) -> bool {
        self.0.borrow().contains_key(key)
    }
    pub fn len(&self) -> usize {
        self.0.borrow().len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.borrow().is_empty()
    }
    /// A snapshot of the entries, in key order.
    pub fn entries(&self) -> Vec<(String, GoValue)> {
        self.0.borrow().iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }
    pub fn insert(&self, key: String, value: GoValue) {
        self.0.borrow_mut().insert(key, value);
    }
    pub fn remove(&self, key: &str) {
        self.0.borrow_mut().remove(key);
    }
}

impl PartialEq for GoMap {
    fn eq(&self, other: &Self) -> bool {
        std::rc::Rc::ptr_eq(&self.0, &other.0) || self.entries() == other.entries()
    }
}

impl std::fmt::Debug for GoMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.entries()).finish()
    }
}

impl FromIterator<(String, GoValue)> for GoMap {
    fn from_iter<I: IntoIterator<Item = (String, GoValue)>>(iter: I) -> Self {
        GoMap::new(iter.into_iter().collect())
    }
}

impl GoValue {
    /// Converts JSON the way `json.Unmarshal` into `interface{}` does: every number is a float64.
    pub fn from_json(value: &Value) -> GoValue {
        match value {
            Value::Null => GoValue::Nil,
            Value::Bool(b) => GoValue::Bool(*b),
            Value::Number(n) => GoValue::Float(n.as_f64().unwrap_or(0.0)),
            Value::String(s) => GoValue::Str(s.clone()),
            Value::Array(items) => GoValue::List(items.iter().map(GoValue::from_json).collect()),
            Value::Object(map) => GoValue::Map(map.iter().map(|(k, v)| (k.clone(), GoValue::from_json(v))).collect()),
        }
    }

    /// Converts to JSON the way `json.Marshal` does.
    pub fn to_json(&self) -> Value {
        match self {
            GoValue::Missing | GoValue::Nil => Value::Null,
            GoValue::Bool(b) => Value::Bool(*b),
            GoValue::Int(i) => Value::from(*i),
            GoValue::Float(f) => {
                if f.fract() == 0.0 && f.abs() < 1e15 {
                    Value::from(*f as i64)
                } else {
                    serde_json::Number::from_f64(*f).map(Value::Number).unwrap_or(Value::Null)
                }
            }
            GoValue::Str(s) => Value::String(s.clone()),
            GoValue::List(items) => Value::Array(items.iter().map(GoValue::to_json).collect()),
            GoValue::Map(map) => Value::Object(map.entries().into_iter().map(|(k, v)| (k, v.to_json())).collect()),
        }
    }

    /// Go's type name, as used in error messages and `typeOf`.
    pub fn type_name(&self) -> &'static str {
        match self {
            GoValue::Missing | GoValue::Nil => "<nil>",
            GoValue::Bool(_) => "bool",
            GoValue::Int(_) => "int",
            GoValue::Float(_) => "float64",
            GoValue::Str(_) => "string",
            GoValue::List(_) => "[]interface {}",
            GoValue::Map(_) => "map[string]interface {}",
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            GoValue::Missing => "invalid",
            GoValue::Nil => "invalid",
            GoValue::Bool(_) => "bool",
            GoValue::Int(_) => "int",
            GoValue::Float(_) => "float64",
            GoValue::Str(_) => "string",
            GoValue::List(_) => "slice",
            GoValue::Map(_) => "map",
        }
    }

    /// Go's `template.IsTrue`.
    pub fn truthy(&self) -> bool {
        match self {
            GoValue::Missing | GoValue::Nil => false,
            GoValue::Bool(b) => *b,
            GoValue::Int(i) => *i != 0,
            GoValue::Float(f) => *f != 0.0,
            GoValue::Str(s) => !s.is_empty(),
            GoValue::List(l) => !l.is_empty(),
            GoValue::Map(m) => !m.is_empty(),
        }
    }

    /// `fmt.Sprint` of the value at the top level (missing and nil print `<no value>` in templates).
    fn print_top(&self) -> String {
        match self {
            GoValue::Missing | GoValue::Nil => "<no value>".to_string(),
            other => other.sprint(),
        }
    }

    /// `fmt.Sprint(v)` / `%v`.
    pub fn sprint(&self) -> String {
        match self {
            GoValue::Missing | GoValue::Nil => "<nil>".to_string(),
            GoValue::Bool(b) => b.to_string(),
            GoValue::Int(i) => i.to_string(),
            GoValue::Float(f) => format_float_g(*f),
            GoValue::Str(s) => s.clone(),
            GoValue::List(items) => {
                let parts: Vec<String> = items.iter().map(GoValue::sprint).collect();
                format!("[{}]", parts.join(" "))
            }
            GoValue::Map(map) => {
                let parts: Vec<String> = map.entries().iter().map(|(k, v)| format!("{k}:{}", v.sprint())).collect();
                format!("map[{}]", parts.join(" "))
            }
        }
    }
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)` (what `%v` prints for a float64).
pub fn format_float_g(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf".into() } else { "-Inf".into() };
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "1.234e6", "-5e-7".
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if negative { "-" } else { "" };
    if exp < -4 || exp >= 6 {
        let (first, rest) = digits.split_at(1);
        let frac = if rest.is_empty() { String::new() } else { format!(".{rest}") };
        let exp_sign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{first}{frac}e{exp_sign}{:02}", exp.abs());
    }
    // Plain decimal notation.
    let point = exp + 1; // digits before the decimal point
    let body = if point <= 0 {
        format!("0.{}{digits}", "0".repeat((-point) as usize))
    } else if point as usize >= digits.len() {
        format!("{digits}{}", "0".repeat(point as usize - digits.len()))
    } else {
        let (int, frac) = digits.split_at(point as usize);
        format!("{int}.{frac}")
    };
    format!("{sign}{body}")
}

/// An error from parsing or executing a template, with Go's message format.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct TemplateError {
    pub message: String,
}

fn parse_error(name: &str, line: usize, msg: impl std::fmt::Display) -> TemplateError {
    TemplateError { message: format!("template: {name}:{line}: {msg}") }
}

// ---------------------------------------------------------------------------------------------
// Lexer

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Text(String),
    Left,
    Right,
    Ident(String),
    Keyword(String),
    /// `.a.b`; `chained` when it directly follows `)`.
    Field(Vec<String>, bool),
    Dot,
    Var(String, Vec<String>),
    Declare,
    Assign,
    Pipe,
    LParen,
    RParen,
    Comma,
    Str(String),
    Number(String),
    Char(char),
    Bool(bool),
    Nil,
    Eof,
}

#[derive(Debug, Clone)]
struct Token {
    tok: Tok,
    pos: usize,
}

const KEYWORDS: &[&str] = &["if", "else", "end", "range", "with", "define", "template", "block", "break", "continue"];

struct Lexer<'a> {
    src: &'a str,
    name: &'a str,
    pos: usize,
    tokens: Vec<Token>,
}

fn line_of(src: &str, pos: usize) -> usize {
    src[..pos.min(src.len())].matches('\n').count() + 1
}

fn col_of(src: &str, pos: usize) -> usize {
    let start = src[..pos.min(src.len())].rfind('\n').map(|i| i + 1).unwrap_or(0);
    pos - start
}

impl<'a> Lexer<'a> {
    fn err(&self, pos: usize, msg: impl std::fmt::Display) -> TemplateError {
        parse_error(self.name, line_of(self.src, pos), msg)
    }

    fn run(mut self) -> Result<Vec<Token>, TemplateError> {
        let src = self.src;
        let mut trim_next = false;
        loop {
            let rest = &src[self.pos..];
            let Some(open) = rest.find("{{") else {
                let mut text = rest.to_string();
                if trim_next {
                    text = text.trim_start().to_string();
                }
                if !text.is_empty() {
                    self.tokens.push(Token { tok: Tok::Text(text), pos: self.pos });
                }
                break;
            };
            let mut text = rest[..open].to_string();
            if trim_next {
                text = text.trim_start().to_string();
            }
            let mut action = self.pos + open + 2;
            let left_trim = src[action..].starts_with('-')
                && src[action + 1..].chars().next().is_some_and(|c| matches!(c, ' ' | '\t' | '\r' | '\n'));
            if left_trim {
                text = text.trim_end().to_string();
                action += 2;
            }
            if !text.is_empty() {
                self.tokens.push(Token { tok: Tok::Text(text), pos: self.pos });
            }
            // Comments.
            if src[action..].starts_with("/*") {
                let Some(end) = src[action..].find("*/") else {
                    return Err(self.err(action, "unclosed comment"));
                };
                let mut after = action + end + 2;
                let mut right_trim = false;
                if src[after..].starts_with(" -}}") {
                    right_trim = true;
                    after += 4;
                } else if src[after..].starts_with("}}") {
                    after += 2;
                } else {
                    return Err(self.err(action, "comment ends before closing delimiter"));
                }
                trim_next = right_trim;
                self.pos = after;
                continue;
            }
            self.tokens.push(Token { tok: Tok::Left, pos: self.pos + open });
            self.pos = action;
            trim_next = self.lex_action()?;
        }
        self.tokens.push(Token { tok: Tok::Eof, pos: src.len() });
        Ok(self.tokens)
    }

    /// Lexes inside `{{ }}`; returns whether the action ended with `-}}`.
    fn lex_action(&mut self) -> Result<bool, TemplateError> {
        let src = self.src;
        let mut paren_depth = 0usize;
        loop {
            let rest = &src[self.pos..];
            if rest.is_empty() {
                return Err(self.err(self.pos, "unclosed action"));
            }
            if rest.starts_with("}}") {
                self.tokens.push(Token { tok: Tok::Right, pos: self.pos });
                self.pos += 2;
                return Ok(false);
            }
            let c = rest.chars().next().unwrap_or(' ');
            if matches!(c, ' ' | '\t' | '\r' | '\n') {
                // ` -}}` right trim marker.
                let trimmed = rest.trim_start_matches([' ', '\t', '\r', '\n']);
                if trimmed.starts_with("-}}") {
                    self.tokens.push(Token { tok: Tok::Right, pos: self.pos });
                    self.pos = src.len() - trimmed.len() + 3;
                    return Ok(true);
                }
                self.pos += c.len_utf8();
                continue;
            }
            let start = self.pos;
            match c {
                '|' => self.push(Tok::Pipe, 1),
                '(' => {
                    paren_depth += 1;
                    self.push(Tok::LParen, 1)
                }
                ')' => {
                    if paren_depth == 0 {
                        return Err(self.err(start, "unexpected right paren"));
                    }
                    paren_depth -= 1;
                    self.push(Tok::RParen, 1);
                    if src[self.pos..].starts_with('.') && src[self.pos + 1..].starts_with(is_ident_start) {
                        let fields = self.lex_fields();
                        self.tokens.push(Token { tok: Tok::Field(fields, true), pos: start + 1 });
                    }
                }
                ',' => self.push(Tok::Comma, 1),
                ':' => {
                    if rest.starts_with(":=") {
                        self.push(Tok::Declare, 2)
                    } else {
                        return Err(self.err(start, "expected :="));
                    }
                }
                '=' => self.push(Tok::Assign, 1),
                '"' => {
                    let s = self.lex_quoted()?;
                    self.tokens.push(Token { tok: Tok::Str(s), pos: start });
                }
                '`' => {
                    let Some(end) = rest[1..].find('`') else {
                        return Err(self.err(start, "unterminated raw quoted string"));
                    };
                    let s = rest[1..1 + end].to_string();
                    self.pos += end + 2;
                    self.tokens.push(Token { tok: Tok::Str(s), pos: start });
                }
                '\'' => {
                    let ch = self.lex_char()?;
                    self.tokens.push(Token { tok: Tok::Char(ch), pos: start });
                }
                '$' => {
                    self.pos += 1;
                    let name_len = src[self.pos..].find(|c: char| !is_ident_char(c)).unwrap_or(src.len() - self.pos);
                    let name = format!("${}", &src[self.pos..self.pos + name_len]);
                    self.pos += name_len;
                    let fields = if src[self.pos..].starts_with('.') { self.lex_fields() } else { Vec::new() };
                    self.tokens.push(Token { tok: Tok::Var(name, fields), pos: start });
                }
                '.' => {
                    if src[self.pos + 1..].starts_with(is_ident_start) {
                        let fields = self.lex_fields();
                        self.tokens.push(Token { tok: Tok::Field(fields, false), pos: start });
                    } else if src[self.pos + 1..].starts_with(|c: char| c.is_ascii_digit()) {
                        let n = self.lex_number();
                        self.tokens.push(Token { tok: Tok::Number(n), pos: start });
                    } else {
                        self.push(Tok::Dot, 1)
                    }
                }
                c if c.is_ascii_digit()
                    || ((c == '-' || c == '+') && rest[1..].starts_with(|d: char| d.is_ascii_digit() || d == '.')) =>
                {
                    let n = self.lex_number();
                    self.tokens.push(Token { tok: Tok::Number(n), pos: start });
                }
                c if is_ident_start(c) => {
                    let len = rest.find(|c: char| !is_ident_char(c)).unwrap_or(rest.len());
                    let word = &rest[..len];
                    self.pos += len;
                    let tok = match word {
                        "true" => Tok::Bool(true),
                        "false" => Tok::Bool(false),
                        "nil" => Tok::Nil,
                        w if KEYWORDS.contains(&w) => Tok::Keyword(w.to_string()),
                        w => Tok::Ident(w.to_string()),
                    };
                    self.tokens.push(Token { tok, pos: start });
                }
                other => return Err(self.err(start, format!("unexpected {other:?} in command"))),
            }
        }
    }

    fn push(&mut self, tok: Tok, len: usize) {
        self.tokens.push(Token { tok, pos: self.pos });
        self.pos += len;
    }

    /// `.a.b.c` starting at a `.`.
    fn lex_fields(&mut self) -> Vec<String> {
        let src = self.src;
        let mut fields = Vec::new();
        while src[self.pos..].starts_with('.') && src[self.pos + 1..].starts_with(is_ident_start) {
            self.pos += 1;
            let len = src[self.pos..].find(|c: char| !is_ident_char(c)).unwrap_or(src.len() - self.pos);
            fields.push(src[self.pos..self.pos + len].to_string());
            self.pos += len;
        }
        fields
    }

    fn lex_number(&mut self) -> String {
        let src = self.src;
        let start = self.pos;
        let mut end = start;
        let bytes = src.as_bytes();
        if end < bytes.len() && (bytes[end] == b'-' || bytes[end] == b'+') {
            end += 1;
        }
        while end < bytes.len() {
            let b = bytes[end];
            let prev = if end > start { bytes[end - 1] } else { 0 };
            if b.is_ascii_alphanumeric()
                || b == b'.'
                || b == b'_'
                || ((b == b'-' || b == b'+') && matches!(prev, b'e' | b'E' | b'p' | b'P'))
            {
                end += 1;
            } else {
                break;
            }
        }
        self.pos = end;
        src[start..end].to_string()
    }

    fn lex_quoted(&mut self) -> Result<String, TemplateError> {
        let src = self.src;
        let start = self.pos;
        let mut out = String::new();
        let mut chars = src[start + 1..].char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.pos = start + 1 + i + 1;
                    return Ok(out);
                }
                '\n' => break,
                '\\' => {
                    let Some((_, e)) = chars.next() else { break };
                    match e {
                        'n' => out.push('\n'),
                        't' => out.push('\t'),
                        'r' => out.push('\r'),
                        '\\' => out.push('\\'),
                        '"' => out.push('"'),
                        '\'' => out.push('\''),
                        'a' => out.push('\u{7}'),
                        'b' => out.push('\u{8}'),
                        'f' => out.push('\u{c}'),
                        'v' => out.push('\u{b}'),
                        'x' | 'u' | 'U' => {
                            let n = match e {
                                'x' => 2,
                                'u' => 4,
                                _ => 8,
                            };
                            let hex: String = (0..n).filter_map(|_| chars.next().map(|(_, c)| c)).collect();
                            let code = u32::from_str_radix(&hex, 16)
                                .map_err(|_| self.err(start, "invalid syntax in quoted string"))?;
                            out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                        }
                        _ => return Err(self.err(start, "invalid syntax in quoted string")),
                    }
                }
                c => out.push(c),
            }
        }
        Err(self.err(start, "unterminated quoted string"))
    }

    fn lex_char(&mut self) -> Result<char, TemplateError> {
        let src = self.src;
        let start = self.pos;
        let rest = &src[start + 1..];
        let mut chars = rest.chars();
        let c = match chars.next() {
            Some('\\') => match chars.next() {
                Some('n') => '\n',
                Some('t') => '\t',
                Some('\\') => '\\',
                Some('\'') => '\'',
                _ => return Err(self.err(start, "unterminated character constant")),
            },
            Some(c) => c,
            None => return Err(self.err(start, "unterminated character constant")),
        };
        let consumed = rest.len() - chars.as_str().len();
        if !chars.as_str().starts_with('\'') {
            return Err(self.err(start, "unterminated character constant"));
        }
        self.pos = start + 1 + consumed + 1;
        Ok(c)
    }
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

// ---------------------------------------------------------------------------------------------
// Parser

#[derive(Debug, Clone)]
enum Node {
    Text(String),
    Action(Pipeline),
    If(Pipeline, Vec<Node>, Vec<Node>),
    Range(Pipeline, Vec<Node>, Vec<Node>),
    With(Pipeline, Vec<Node>, Vec<Node>),
    Template(String, Option<Pipeline>, usize),
    Break,
    Continue,
}

#[derive(Debug, Clone)]
struct Pipeline {
    decl: Vec<String>,
    assign: bool,
    cmds: Vec<Command>,
    pos: usize,
    text: String,
}

#[derive(Debug, Clone)]
struct Command {
    args: Vec<Operand>,
    pos: usize,
    text: String,
}

#[derive(Debug, Clone)]
enum Operand {
    Func(String),
    Dot,
    Field(Vec<String>, usize),
    Var(String, Vec<String>, usize),
    Str(String),
    Number(GoValue),
    Bool(bool),
    Nil,
    Pipe(Box<Pipeline>, Vec<String>),
}

/// A parsed template: the main body plus its `define`d templates.
#[derive(Debug, Clone)]
pub struct Template {
    name: String,
    src: String,
    root: Vec<Node>,
    defines: BTreeMap<String, Vec<Node>>,
}

struct Parser<'a> {
    tokens: Vec<Token>,
    i: usize,
    src: &'a str,
    name: &'a str,
    defines: BTreeMap<String, Vec<Node>>,
    vars: Vec<Vec<String>>,
}

enum ListEnd {
    Eof,
    End,
    Else(usize),
}

impl<'a> Parser<'a> {
    fn peek(&self) -> &Tok {
        &self.tokens[self.i].tok
    }
    fn peek_at(&self, n: usize) -> &Tok {
        let idx = (self.i + n).min(self.tokens.len() - 1);
        &self.tokens[idx].tok
    }
    fn pos(&self) -> usize {
        self.tokens[self.i].pos
    }
    fn next(&mut self) -> Token {
        let t = self.tokens[self.i].clone();
        if self.i < self.tokens.len() - 1 {
            self.i += 1;
        }
        t
    }
    fn err(&self, msg: impl std::fmt::Display) -> TemplateError {
        parse_error(self.name, line_of(self.src, self.pos()), msg)
    }
    fn unexpected(&self, context: &str) -> TemplateError {
        let what = match self.peek() {
            Tok::Right => "\"}}\"".to_string(),
            Tok::Eof => return self.err(format!("unexpected EOF in {context}")),
            Tok::RParen => "\")\"".to_string(),
            Tok::Pipe => "\"|\"".to_string(),
            other => format!("{other:?}"),
        };
        self.err(format!("unexpected {what} in {context}"))
    }

    fn parse_list(&mut self) -> Result<(Vec<Node>, ListEnd), TemplateError> {
        let mut nodes = Vec::new();
        loop {
            match self.peek().clone() {
                Tok::Eof => return Ok((nodes, ListEnd::Eof)),
                Tok::Text(t) => {
                    self.next();
                    nodes.push(Node::Text(t));
                }
                Tok::Left => {
                    self.next();
                    if let Tok::Keyword(k) = self.peek().clone() {
                        match k.as_str() {
                            "end" => {
                                self.next();
                                self.expect_right("end")?;
                                return Ok((nodes, ListEnd::End));
                            }
                            "else" => {
                                let pos = self.pos();
                                self.next();
                                return Ok((nodes, ListEnd::Else(pos)));
                            }
                            "if" | "range" | "with" => {
                                self.next();
                                nodes.push(self.parse_control(&k)?);
                                continue;
                            }
                            "break" | "continue" => {
                                self.next();
                                self.expect_right(&k)?;
                                nodes.push(if k == "break" { Node::Break } else { Node::Continue });
                                continue;
                            }
                            "define" | "block" => {
                                self.next();
                                let Tok::Str(name) = self.next().tok else {
                                    return Err(self.err(format!("unexpected token in {k} clause")));
                                };
                                let pipe = if k == "block" { Some(self.parse_pipeline("block", false)?) } else { None };
                                if k == "define" {
                                    self.expect_right("define clause")?;
                                }
                                let (body, end) = self.parse_list()?;
                                if !matches!(end, ListEnd::End) {
                                    return Err(self.err(format!("unexpected EOF in {k}")));
                                }
                                self.defines.insert(name.clone(), body);
                                if let Some(pipe) = pipe {
                                    let pos = pipe.pos;
                                    nodes.push(Node::Template(name, Some(pipe), pos));
                                }
                                continue;
                            }
                            "template" => {
                                let pos = self.pos();
                                self.next();
                                let Tok::Str(name) = self.next().tok else {
                                    return Err(self.err("unexpected token in template clause"));
                                };
                                let pipe = if matches!(self.peek(), Tok::Right) {
                                    self.next();
                                    None
                                } else {
                                    Some(self.parse_pipeline("template clause", false)?)
                                };
                                nodes.push(Node::Template(name, pipe, pos));
                                continue;
                            }
                            _ => {}
                        }
                    }
                    let pipe = self.parse_pipeline("command", true)?;
                    nodes.push(Node::Action(pipe));
                }
                _ => return Err(self.unexpected("input")),
            }
        }
    }

    fn expect_right(&mut self, context: &str) -> Result<(), TemplateError> {
        if matches!(self.peek(), Tok::Right) {
            self.next();
            Ok(())
        } else {
            Err(self.unexpected(context))
        }
    }

    fn parse_control(&mut self, kind: &str) -> Result<Node, TemplateError> {
        self.vars.push(Vec::new());
        let pipe = self.parse_pipeline(kind, true)?;
        let (body, end) = self.parse_list()?;
        let mut else_list = Vec::new();
        match end {
            ListEnd::Eof => {
                return Err(self.err(format!("unexpected EOF")));
            }
            ListEnd::End => {}
            ListEnd::Else(_) => {
                // `else if` / `else with` chain into a nested control in the else branch.
                if let Tok::Keyword(k) = self.peek().clone()
                    && (k == "if" && kind == "if" || k == "with" && kind == "with")
                {
                    self.next();
                    // The nested control consumes the shared `end`.
                    else_list.push(self.parse_control(&k)?);
                } else {
                    self.expect_right("else")?;
                    let (els, end2) = self.parse_list()?;
                    match end2 {
                        ListEnd::End => {}
                        ListEnd::Else(_) => return Err(self.err("expected end; found {{else}}")),
                        ListEnd::Eof => return Err(self.err("unexpected EOF")),
                    }
                    else_list = els;
                }
            }
        }
        self.vars.pop();
        Ok(match kind {
            "if" => Node::If(pipe, body, else_list),
            "range" => Node::Range(pipe, body, else_list),
            _ => Node::With(pipe, body, else_list),
        })
    }

    /// Parses a pipeline up to `}}` (consumed) or `)` (not consumed).
    fn parse_pipeline(&mut self, context: &str, allow_decl: bool) -> Result<Pipeline, TemplateError> {
        let start = self.pos();
        let mut decl = Vec::new();
        let mut assign = false;
        if allow_decl
            && let Tok::Var(name, fields) = self.peek().clone()
            && fields.is_empty()
        {
            match self.peek_at(1) {
                Tok::Declare | Tok::Assign => {
                    assign = matches!(self.peek_at(1), Tok::Assign);
                    self.next();
                    self.next();
                    decl.push(name);
                }
                Tok::Comma if context == "range" => {
                    if let Tok::Var(second, f2) = self.peek_at(2).clone()
                        && f2.is_empty()
                        && matches!(self.peek_at(3), Tok::Declare | Tok::Assign)
                    {
                        assign = matches!(self.peek_at(3), Tok::Assign);
                        for _ in 0..4 {
                            self.next();
                        }
                        decl.push(name);
                        decl.push(second);
                    } else {
                        return Err(self.err("range can only initialize variables"));
                    }
                }
                _ => {}
            }
        }
        if assign {
            for d in &decl {
                if !self.var_known(d) {
                    return Err(self.err(format!("undefined variable \"{d}\"")));
                }
            }
        }
        let mut cmds = Vec::new();
        loop {
            match self.peek() {
                Tok::Right => {
                    if cmds.is_empty() {
                        return Err(self.err(format!("missing value for {context}")));
                    }
                    let end = self.pos();
                    self.next();
                    let text = self.src[start..end].trim().to_string();
                    self.declare(&decl, assign);
                    return Ok(Pipeline { decl, assign, cmds, pos: start, text });
                }
                Tok::RParen => {
                    if cmds.is_empty() {
                        return Err(self.err(format!("missing value for {context}")));
                    }
                    let end = self.pos();
                    let text = self.src[start..end].trim().to_string();
                    self.declare(&decl, assign);
                    return Ok(Pipeline { decl, assign, cmds, pos: start, text });
                }
                Tok::Pipe if !cmds.is_empty() => {
                    self.next();
                }
                Tok::Eof => return Err(self.err(format!("unclosed action"))),
                _ => {
                    cmds.push(self.parse_command()?);
                    if !matches!(self.peek(), Tok::Pipe | Tok::Right | Tok::RParen) {
                        return Err(self.unexpected("operand"));
                    }
                }
            }
        }
    }

    fn var_known(&self, name: &str) -> bool {
        name == "$" || self.vars.iter().any(|scope| scope.iter().any(|v| v == name))
    }

    fn declare(&mut self, decl: &[String], assign: bool) {
        if !assign && let Some(scope) = self.vars.last_mut() {
            scope.extend(decl.iter().cloned());
        }
    }

    fn parse_command(&mut self) -> Result<Command, TemplateError> {
        let start = self.pos();
        let mut args = Vec::new();
        loop {
            match self.peek() {
                Tok::Pipe | Tok::Right | Tok::RParen => break,
                _ => args.push(self.parse_operand()?),
            }
        }
        if args.is_empty() {
            return Err(self.err("empty command"));
        }
        let end = self.pos();
        let text = self.src[start..end].trim().to_string();
        Ok(Command { args, pos: start, text })
    }

    fn parse_operand(&mut self) -> Result<Operand, TemplateError> {
        let tok = self.next();
        Ok(match tok.tok {
            Tok::Ident(name) => {
                if !FUNCTIONS.contains(&name.as_str()) {
                    return Err(parse_error(
                        self.name,
                        line_of(self.src, tok.pos),
                        format!("function \"{name}\" not defined"),
                    ));
                }
                Operand::Func(name)
            }
            Tok::Dot => Operand::Dot,
            Tok::Field(fields, _) => Operand::Field(fields, tok.pos),
            Tok::Var(name, fields) => {
                if !self.var_known(&name) {
                    return Err(parse_error(
                        self.name,
                        line_of(self.src, tok.pos),
                        format!("undefined variable \"{name}\""),
                    ));
                }
                Operand::Var(name, fields, tok.pos)
            }
            Tok::Str(s) => Operand::Str(s),
            Tok::Char(c) => Operand::Number(GoValue::Int(c as i64)),
            Tok::Number(text) => Operand::Number(parse_number(&text).ok_or_else(|| {
                parse_error(self.name, line_of(self.src, tok.pos), format!("bad number syntax: \"{text}\""))
            })?),
            Tok::Bool(b) => Operand::Bool(b),
            Tok::Nil => Operand::Nil,
            Tok::LParen => {
                let pipe = self.parse_pipeline("parenthesized pipeline", false)?;
                if !matches!(self.peek(), Tok::RParen) {
                    return Err(self.err("unclosed left paren"));
                }
                self.next();
                let fields = if let Tok::Field(fields, true) = self.peek().clone() {
                    self.next();
                    fields
                } else {
                    Vec::new()
                };
                Operand::Pipe(Box::new(pipe), fields)
            }
            Tok::Keyword(k) => {
                return Err(parse_error(self.name, line_of(self.src, tok.pos), format!("unexpected <{k}> in command")));
            }
            _ => {
                self.i -= 1;
                return Err(self.unexpected("operand"));
            }
        })
    }
}

fn parse_number(text: &str) -> Option<GoValue> {
    let clean = text.replace('_', "");
    let (neg, body) = match clean.strip_prefix('-') {
        Some(rest) => (true, rest.to_string()),
        None => (false, clean.trim_start_matches('+').to_string()),
    };
    let lower = body.to_ascii_lowercase();
    let int = if let Some(hex) = lower.strip_prefix("0x") {
        i64::from_str_radix(hex, 16).ok()
    } else if let Some(oct) = lower.strip_prefix("0o") {
        i64::from_str_radix(oct, 8).ok()
    } else if let Some(bin) = lower.strip_prefix("0b") {
        i64::from_str_radix(bin, 2).ok()
    } else if lower.len() > 1 && lower.starts_with('0') && lower.chars().all(|c| c.is_ascii_digit()) {
        i64::from_str_radix(&lower[1..], 8).ok()
    } else {
        lower.parse::<i64>().ok()
    };
    if let Some(i) = int {
        return Some(GoValue::Int(if neg { -i } else { i }));
    }
    let f: f64 = lower.parse().ok()?;
    // Go treats a float constant with an integral value as an int when passed to interface{}.
    if f.fract() == 0.0 && f.abs() < 9.2e18 && !lower.contains('e') && !lower.contains('.') {
        return Some(GoValue::Int(if neg { -(f as i64) } else { f as i64 }));
    }
    Some(GoValue::Float(if neg { -f } else { f }))
}

impl Template {
    /// Parses `src` as template `name` (CAPI uses "tpl").
    pub fn parse(name: &str, src: &str) -> Result<Template, TemplateError> {
        let tokens = Lexer { src, name, pos: 0, tokens: Vec::new() }.run()?;
        let mut parser = Parser { tokens, i: 0, src, name, defines: BTreeMap::new(), vars: vec![Vec::new()] };
        let (root, end) = parser.parse_list()?;
        match end {
            ListEnd::Eof => {}
            ListEnd::End => return Err(parse_error(name, line_of(src, parser.pos()), "unexpected {{end}}")),
            ListEnd::Else(pos) => return Err(parse_error(name, line_of(src, pos), "unexpected {{else}}")),
        }
        Ok(Template { name: name.to_string(), src: src.to_string(), root, defines: parser.defines })
    }

    /// Executes the template with `data` as dot.
    pub fn execute(&self, data: &GoValue) -> Result<String, TemplateError> {
        let mut state = State { tpl: self, vars: vec![("$".to_string(), data.clone())], out: String::new(), depth: 0 };
        state.walk_list(&self.root, data, &self.name)?;
        Ok(state.out)
    }
}

// ---------------------------------------------------------------------------------------------
// Execution

enum Flow {
    Normal,
    Break,
    Continue,
}

struct State<'a> {
    tpl: &'a Template,
    vars: Vec<(String, GoValue)>,
    out: String,
    depth: usize,
}

impl State<'_> {
    fn exec_err(&self, tpl_name: &str, pos: usize, at: &str, msg: impl std::fmt::Display) -> TemplateError {
        let src = &self.tpl.src;
        TemplateError {
            message: format!(
                "template: {}:{}:{}: executing \"{tpl_name}\" at <{at}>: {msg}",
                self.tpl.name,
                line_of(src, pos),
                col_of(src, pos)
            ),
        }
    }

    fn walk_list(&mut self, nodes: &[Node], dot: &GoValue, tpl_name: &str) -> Result<Flow, TemplateError> {
        for node in nodes {
            match self.walk(node, dot, tpl_name)? {
                Flow::Normal => {}
                flow => return Ok(flow),
            }
        }
        Ok(Flow::Normal)
    }

    fn walk(&mut self, node: &Node, dot: &GoValue, tpl_name: &str) -> Result<Flow, TemplateError> {
        match node {
            Node::Text(t) => self.out.push_str(t),
            Node::Action(pipe) => {
                let value = self.eval_pipeline(pipe, dot, tpl_name)?;
                if pipe.decl.is_empty() {
                    self.out.push_str(&value.print_top());
                }
            }
            Node::If(pipe, body, els) | Node::With(pipe, body, els) => {
                let mark = self.vars.len();
                let value = self.eval_pipeline(pipe, dot, tpl_name)?;
                let is_with = matches!(node, Node::With(..));
                let flow = if value.truthy() {
                    let new_dot = if is_with { value } else { dot.clone() };
                    self.walk_list(body, &new_dot, tpl_name)?
                } else {
                    self.walk_list(els, dot, tpl_name)?
                };
                self.vars.truncate(mark);
                return Ok(flow);
            }
            Node::Range(pipe, body, els) => {
                let mark = self.vars.len();
                let value = self.eval_pipeline_value(pipe, dot, tpl_name)?;
                let items: Vec<(GoValue, GoValue)> = match &value {
                    GoValue::List(list) => {
                        list.iter().enumerate().map(|(i, v)| (GoValue::Int(i as i64), v.clone())).collect()
                    }
                    GoValue::Map(map) => map.entries().into_iter().map(|(k, v)| (GoValue::Str(k), v)).collect(),
                    GoValue::Int(n) => (0..*n).map(|i| (GoValue::Int(i), GoValue::Int(i))).collect(),
                    GoValue::Missing | GoValue::Nil => Vec::new(),
                    other => {
                        return Err(self.exec_err(
                            tpl_name,
                            pipe.pos,
                            &pipe.text,
                            format!("range can't iterate over {}", other.sprint()),
                        ));
                    }
                };
                if items.is_empty() {
                    let flow = self.walk_list(els, dot, tpl_name)?;
                    self.vars.truncate(mark);
                    return Ok(flow);
                }
                for (key, elem) in items {
                    let inner = self.vars.len();
                    match pipe.decl.as_slice() {
                        [one] => self.set_var(one, elem.clone(), pipe.assign),
                        [k, v] => {
                            self.set_var(k, key, pipe.assign);
                            self.set_var(v, elem.clone(), pipe.assign);
                        }
                        _ => {}
                    }
                    let flow = self.walk_list(body, &elem, tpl_name)?;
                    self.vars.truncate(inner.max(mark));
                    if matches!(flow, Flow::Break) {
                        break;
                    }
                }
                self.vars.truncate(mark);
            }
            Node::Template(name, pipe, pos) => {
                let Some(body) = self.tpl.defines.get(name) else {
                    return Err(self.exec_err(
                        tpl_name,
                        *pos,
                        &format!("template \"{name}\""),
                        format!("template \"{name}\" not defined"),
                    ));
                };
                let new_dot = match pipe {
                    Some(p) => self.eval_pipeline(p, dot, tpl_name)?,
                    None => GoValue::Nil,
                };
                self.depth += 1;
                if self.depth > 1000 {
                    return Err(self.exec_err(tpl_name, *pos, name, "exceeded maximum template depth (100000)"));
                }
                let saved = std::mem::replace(&mut self.vars, vec![("$".to_string(), new_dot.clone())]);
                self.walk_list(body, &new_dot, name)?;
                self.vars = saved;
                self.depth -= 1;
            }
            Node::Break => return Ok(Flow::Break),
            Node::Continue => return Ok(Flow::Continue),
        }
        Ok(Flow::Normal)
    }

    fn set_var(&mut self, name: &str, value: GoValue, assign: bool) {
        if assign && let Some(slot) = self.vars.iter_mut().rev().find(|(n, _)| n == name) {
            slot.1 = value;
            return;
        }
        self.vars.push((name.to_string(), value));
    }

    fn var(&self, name: &str) -> GoValue {
        self.vars.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v.clone()).unwrap_or(GoValue::Missing)
    }

    /// Evaluates a pipeline and binds its declared variables (if/with/action semantics).
    fn eval_pipeline(&mut self, pipe: &Pipeline, dot: &GoValue, tpl_name: &str) -> Result<GoValue, TemplateError> {
        let value = self.eval_pipeline_value(pipe, dot, tpl_name)?;
        if let Some(name) = pipe.decl.first() {
            self.set_var(name, value.clone(), pipe.assign);
        }
        Ok(value)
    }

    fn eval_pipeline_value(
        &mut self,
        pipe: &Pipeline,
        dot: &GoValue,
        tpl_name: &str,
    ) -> Result<GoValue, TemplateError> {
        let mut value: Option<GoValue> = None;
        for cmd in &pipe.cmds {
            value = Some(self.eval_command(cmd, dot, value, tpl_name)?);
        }
        Ok(value.unwrap_or(GoValue::Missing))
    }

    fn eval_command(
        &mut self,
        cmd: &Command,
        dot: &GoValue,
        final_arg: Option<GoValue>,
        tpl_name: &str,
    ) -> Result<GoValue, TemplateError> {
        let first = &cmd.args[0];
        if let Operand::Func(name) = first {
            let name = name.as_str();
            // and/or short-circuit and return the deciding argument.
            if name == "and" || name == "or" {
                let mut operands: Vec<&Operand> = cmd.args[1..].iter().collect();
                if operands.is_empty() && final_arg.is_none() {
                    return Err(self.exec_err(
                        tpl_name,
                        cmd.pos,
                        &cmd.text,
                        format!("wrong number of args for {name}: want at least 1 got 0"),
                    ));
                }
                let mut last = GoValue::Missing;
                let total = operands.len() + usize::from(final_arg.is_some());
                for (i, op) in operands.drain(..).enumerate() {
                    let v = self.eval_arg(op, dot, cmd, tpl_name)?;
                    let decided = if name == "and" { !v.truthy() } else { v.truthy() };
                    if decided || i + 1 == total {
                        return Ok(v);
                    }
                    last = v;
                }
                if let Some(v) = final_arg {
                    return Ok(v);
                }
                return Ok(last);
            }
            let mut args = Vec::with_capacity(cmd.args.len());
            for op in &cmd.args[1..] {
                args.push(self.eval_arg(op, dot, cmd, tpl_name)?);
            }
            if let Some(v) = final_arg {
                args.push(v);
            }
            return call_function(name, args).map_err(|msg| {
                let msg = if msg.starts_with("wrong number of args") || msg.starts_with("error calling") {
                    msg
                } else {
                    format!("error calling {name}: {msg}")
                };
                self.exec_err(tpl_name, cmd.pos, &cmd.text, msg)
            });
        }
        if cmd.args.len() > 1 || final_arg.is_some() {
            return Err(match first {
                Operand::Field(fields, _) | Operand::Var(_, fields, _) if !fields.is_empty() => self.exec_err(
                    tpl_name,
                    cmd.pos,
                    &cmd.text,
                    format!("{} is not a method but has arguments", fields.last().map(String::as_str).unwrap_or("")),
                ),
                _ => self.exec_err(
                    tpl_name,
                    cmd.pos,
                    &cmd.text,
                    format!("can't give argument to non-function {}", operand_text(first)),
                ),
            });
        }
        self.eval_arg(first, dot, cmd, tpl_name)
    }

    fn eval_arg(
        &mut self,
        op: &Operand,
        dot: &GoValue,
        cmd: &Command,
        tpl_name: &str,
    ) -> Result<GoValue, TemplateError> {
        match op {
            Operand::Func(name) => {
                let value =
                    call_function(name, Vec::new()).map_err(|msg| self.exec_err(tpl_name, cmd.pos, &cmd.text, msg))?;
                Ok(value)
            }
            Operand::Dot => Ok(dot.clone()),
            Operand::Field(fields, pos) => self.field_chain(dot.clone(), fields, *pos, cmd, tpl_name),
            Operand::Var(name, fields, pos) => {
                let base = self.var(name);
                self.field_chain(base, fields, pos + name.len(), cmd, tpl_name)
            }
            Operand::Str(s) => Ok(GoValue::Str(s.clone())),
            Operand::Number(n) => Ok(n.clone()),
            Operand::Bool(b) => Ok(GoValue::Bool(*b)),
            Operand::Nil => {
                if std::ptr::eq(op, &cmd.args[0]) {
                    Err(self.exec_err(tpl_name, cmd.pos, &cmd.text, "nil is not a command"))
                } else {
                    Ok(GoValue::Nil)
                }
            }
            Operand::Pipe(pipe, fields) => {
                let mark = self.vars.len();
                let v = self.eval_pipeline(pipe, dot, tpl_name)?;
                self.vars.truncate(mark);
                self.field_chain(v, fields, cmd.pos, cmd, tpl_name)
            }
        }
    }

    /// Walks `.a.b.c` from `value`; `pos` is where the chain starts (errors point at the failing
    /// field and name the whole chain, like Go).
    fn field_chain(
        &self,
        mut value: GoValue,
        fields: &[String],
        pos: usize,
        cmd: &Command,
        tpl_name: &str,
    ) -> Result<GoValue, TemplateError> {
        let chain_text: String = fields.iter().map(|f| format!(".{f}")).collect();
        let at = if matches!(cmd.args.first(), Some(Operand::Field(..))) && cmd.args.len() == 1 {
            chain_text.clone()
        } else {
            cmd.text.clone()
        };
        // Go reports a field chain at its second field (where its parser starts the chain node).
        let field_pos = if fields.len() > 1 { pos + fields[0].len() + 1 } else { pos };
        for (i, field) in fields.iter().enumerate() {
            let from_lookup = i > 0 || matches!(cmd.args.first(), Some(Operand::Field(..)));
            value = match value {
                GoValue::Missing => GoValue::Missing,
                GoValue::Nil => {
                    return Err(self.exec_err(
                        tpl_name,
                        field_pos,
                        &at,
                        format!("nil pointer evaluating interface {{}}.{field}"),
                    ));
                }
                GoValue::Map(map) => map.get(field).unwrap_or(GoValue::Missing),
                other => {
                    let type_name = if from_lookup { "interface {}" } else { other.type_name() };
                    return Err(self.exec_err(
                        tpl_name,
                        field_pos,
                        &at,
                        format!("can't evaluate field {field} in type {type_name}"),
                    ));
                }
            };
        }
        Ok(value)
    }
}

fn operand_text(op: &Operand) -> String {
    match op {
        Operand::Str(s) => format!("{s:?}"),
        Operand::Number(n) => n.sprint(),
        Operand::Bool(b) => b.to_string(),
        Operand::Dot => ".".into(),
        _ => "value".into(),
    }
}

// ---------------------------------------------------------------------------------------------
// Functions

/// Every function name the parser accepts: Go's builtins and the supported sprig functions.
pub const FUNCTIONS: &[&str] = &[
    // Go text/template builtins
    "and",
    "or",
    "not",
    "len",
    "index",
    "slice",
    "print",
    "printf",
    "println",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "html",
    "js",
    "urlquery",
    // sprig: strings
    "upper",
    "lower",
    "title",
    "untitle",
    "trim",
    "trimAll",
    "trimPrefix",
    "trimSuffix",
    "trunc",
    "repeat",
    "substr",
    "nospace",
    "contains",
    "hasPrefix",
    "hasSuffix",
    "quote",
    "squote",
    "cat",
    "indent",
    "nindent",
    "replace",
    "split",
    "splitList",
    "splitn",
    "join",
    "toString",
    "toStrings",
    "sortAlpha",
    "abbrev",
    "regexMatch",
    "regexFind",
    "regexFindAll",
    "regexReplaceAll",
    "regexReplaceAllLiteral",
    "regexSplit",
    "b64enc",
    "b64dec",
    "sha256sum",
    "snakecase",
    "kebabcase",
    "camelcase",
    // sprig: numbers
    "atoi",
    "int",
    "int64",
    "float64",
    "add",
    "add1",
    "sub",
    "mul",
    "div",
    "mod",
    "max",
    "min",
    "floor",
    "ceil",
    "round",
    "until",
    "untilStep",
    "seq",
    // sprig: defaults and flow
    "default",
    "empty",
    "coalesce",
    "all",
    "any",
    "ternary",
    "fail",
    // sprig: lists
    "list",
    "first",
    "last",
    "rest",
    "initial",
    "append",
    "push",
    "prepend",
    "concat",
    "reverse",
    "uniq",
    "without",
    "has",
    "compact",
    // sprig: dicts
    "dict",
    "get",
    "set",
    "unset",
    "hasKey",
    "keys",
    "values",
    "pick",
    "omit",
    "merge",
    "dig",
    "pluck",
    // sprig: encoding and types
    "toJson",
    "toPrettyJson",
    "toRawJson",
    "fromJson",
    "kindOf",
    "kindIs",
    "typeOf",
    "typeIs",
    "deepEqual",
    // sprig: semver
    "semver",
    "semverCompare",
    // sprig: more
    "mergeOverwrite",
    "deepCopy",
    "chunk",
    "tuple",
    "biggest",
    "trimall",
    "addf",
    "add1f",
    "subf",
    "mulf",
    "divf",
    "maxf",
    "minf",
    "base",
    "dir",
    "ext",
    "clean",
    "isAbs",
    "osBase",
    "osDir",
    "osExt",
    "osClean",
    "osIsAbs",
    "sha512sum",
    "adler32sum",
    "plural",
    "swapcase",
    "initials",
    "regexQuoteMeta",
    "toDecimal",
    "typeIsLike",
    "hello",
    // sprig: must* variants (errors instead of empty results)
    "mustAppend",
    "mustPush",
    "mustPrepend",
    "mustFirst",
    "mustLast",
    "mustRest",
    "mustInitial",
    "mustReverse",
    "mustUniq",
    "mustWithout",
    "mustHas",
    "mustCompact",
    "mustChunk",
    "mustDeepCopy",
    "mustMerge",
    "mustMergeOverwrite",
    "mustRegexMatch",
    "mustRegexFind",
    "mustRegexFindAll",
    "mustRegexReplaceAll",
    "mustRegexReplaceAllLiteral",
    "mustRegexSplit",
    "mustToJson",
    "mustToPrettyJson",
    "mustToRawJson",
    "mustFromJson",
];

/// sprig names that behave as another function here.
fn alias(name: &str) -> &str {
    match name {
        "tuple" => "list",
        "biggest" => "max",
        "trimall" => "trimAll",
        "osBase" => "base",
        "osDir" => "dir",
        "osExt" => "ext",
        "osClean" => "clean",
        "osIsAbs" => "isAbs",
        "mustMerge" => "merge",
        "mustMergeOverwrite" => "mergeOverwrite",
        "mustDeepCopy" => "deepCopy",
        "mustChunk" => "chunk",
        "mustToJson" => "toJson",
        "mustToPrettyJson" => "toPrettyJson",
        "mustToRawJson" => "toRawJson",
        other => other
            .strip_prefix("must")
            .filter(|rest| {
                [
                    "Append",
                    "Push",
                    "Prepend",
                    "First",
                    "Last",
                    "Rest",
                    "Initial",
                    "Reverse",
                    "Uniq",
                    "Without",
                    "Has",
                    "Compact",
                    "RegexMatch",
                    "RegexFind",
                    "RegexFindAll",
                    "RegexReplaceAll",
                    "RegexReplaceAllLiteral",
                    "RegexSplit",
                ]
                .contains(rest)
            })
            .map_or(other, |_| match other {
                "mustAppend" => "append",
                "mustPush" => "push",
                "mustPrepend" => "prepend",
                "mustFirst" => "first",
                "mustLast" => "last",
                "mustRest" => "rest",
                "mustInitial" => "initial",
                "mustReverse" => "reverse",
                "mustUniq" => "uniq",
                "mustWithout" => "without",
                "mustHas" => "has",
                "mustCompact" => "compact",
                "mustRegexMatch" => "regexMatch",
                "mustRegexFind" => "regexFind",
                "mustRegexFindAll" => "regexFindAll",
                "mustRegexReplaceAll" => "regexReplaceAll",
                "mustRegexReplaceAllLiteral" => "regexReplaceAllLiteral",
                _ => "regexSplit",
            }),
    }
}

fn deep_copy(v: &GoValue) -> GoValue {
    match v {
        GoValue::Map(m) => GoValue::Map(m.entries().into_iter().map(|(k, v)| (k, deep_copy(&v))).collect()),
        GoValue::List(l) => GoValue::List(l.iter().map(deep_copy).collect()),
        other => other.clone(),
    }
}

/// Go's `path.Clean`.
fn clean_path(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let rooted = p.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in p.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|l| *l != "..") {
                    parts.pop();
                } else if !rooted {
                    parts.push("..");
                }
            }
            other => parts.push(other),
        }
    }
    let joined = parts.join("/");
    match (rooted, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".into(),
        (false, false) => joined,
    }
}

fn want_args(name: &str, args: &[GoValue], n: usize) -> Result<(), String> {
    if args.len() != n {
        return Err(format!("wrong number of args for {name}: want {n} got {}", args.len()));
    }
    Ok(())
}

fn want_min_args(name: &str, args: &[GoValue], n: usize) -> Result<(), String> {
    if args.len() < n {
        return Err(format!("wrong number of args for {name}: want at least {n} got {}", args.len()));
    }
    Ok(())
}

/// A string parameter, as Go's reflection converts it (errors for other types).
fn as_str(v: &GoValue) -> Result<String, String> {
    match v {
        GoValue::Str(s) => Ok(s.clone()),
        GoValue::Missing => Err("invalid value; expected string".into()),
        other => Err(format!("wrong type for value; expected string; got {}", other.type_name())),
    }
}

/// sprig's `toString` (`strval`).
fn strval(v: &GoValue) -> String {
    match v {
        GoValue::Str(s) => s.clone(),
        GoValue::Missing | GoValue::Nil => "<nil>".into(),
        other => other.sprint(),
    }
}

/// `cast.ToInt64` as sprig uses it: numbers truncate, strings parse (0 on failure), bools 0/1.
fn to_i64(v: &GoValue) -> i64 {
    match v {
        GoValue::Int(i) => *i,
        GoValue::Float(f) => *f as i64,
        GoValue::Bool(b) => i64::from(*b),
        GoValue::Str(s) => {
            let t = s.trim();
            t.parse::<i64>().ok().or_else(|| parse_number(t).map(|n| to_i64(&n))).unwrap_or(0)
        }
        _ => 0,
    }
}

fn to_f64(v: &GoValue) -> f64 {
    match v {
        GoValue::Int(i) => *i as f64,
        GoValue::Float(f) => *f,
        GoValue::Bool(b) => f64::from(u8::from(*b)),
        GoValue::Str(s) => s.trim().parse().unwrap_or(0.0),
        _ => 0.0,
    }
}

/// sprig's `empty`.
fn is_empty(v: &GoValue) -> bool {
    !v.truthy()
}

fn as_list(v: &GoValue, fname: &str) -> Result<Vec<GoValue>, String> {
    match v {
        GoValue::List(l) => Ok(l.clone()),
        GoValue::Missing | GoValue::Nil => Ok(Vec::new()),
        other => Err(format!("Cannot {fname} on type {}", other.type_name())),
    }
}

fn as_map(v: &GoValue) -> Result<GoMap, String> {
    match v {
        GoValue::Map(m) => Ok(m.clone()),
        other => Err(format!("wrong type for value; expected map[string]interface {{}}; got {}", other.type_name())),
    }
}

fn regex(pattern: &str) -> Result<regex::Regex, String> {
    regex::Regex::new(pattern).map_err(|e| e.to_string())
}

/// Go's basic kind for comparisons.
#[derive(PartialEq)]
enum Basic {
    Bool,
    Int,
    Float,
    Str,
    Other,
}

fn basic(v: &GoValue) -> Basic {
    match v {
        GoValue::Bool(_) => Basic::Bool,
        GoValue::Int(_) => Basic::Int,
        GoValue::Float(_) => Basic::Float,
        GoValue::Str(_) => Basic::Str,
        _ => Basic::Other,
    }
}

fn go_eq(a: &GoValue, b: &GoValue) -> Result<bool, String> {
    match (basic(a), basic(b)) {
        (Basic::Other, _) | (_, Basic::Other) => {
            // Go: nil compares equal only to nil; non-comparable types error.
            match (a, b) {
                (GoValue::Missing | GoValue::Nil, GoValue::Missing | GoValue::Nil) => Ok(true),
                (GoValue::Missing | GoValue::Nil, _) | (_, GoValue::Missing | GoValue::Nil) => Ok(false),
                (GoValue::List(_) | GoValue::Map(_), _) | (_, GoValue::List(_) | GoValue::Map(_)) => {
                    Err(format!("non-comparable type {}: {}", a.sprint(), a.type_name()))
                }
                _ => Ok(a == b),
            }
        }
        (ka, kb) if ka != kb => {
            Err(format!("incompatible types for comparison: {} and {}", a.type_name(), b.type_name()))
        }
        _ => Ok(a == b),
    }
}

fn go_lt(a: &GoValue, b: &GoValue) -> Result<bool, String> {
    match (a, b) {
        (GoValue::Int(x), GoValue::Int(y)) => Ok(x < y),
        (GoValue::Float(x), GoValue::Float(y)) => Ok(x < y),
        (GoValue::Str(x), GoValue::Str(y)) => Ok(x < y),
        _ if basic(a) == Basic::Other || basic(b) == Basic::Other || basic(a) == Basic::Bool => {
            Err(format!("invalid type for comparison"))
        }
        _ => Err(format!("incompatible types for comparison: {} and {}", a.type_name(), b.type_name())),
    }
}

fn json_marshal(v: &GoValue, pretty: bool, escape_html: bool) -> String {
    let json = v.to_json();
    let text = if pretty {
        serde_json::to_string_pretty(&json).unwrap_or_default()
    } else {
        serde_json::to_string(&json).unwrap_or_default()
    };
    if escape_html { text.replace('<', "\\u003c").replace('>', "\\u003e").replace('&', "\\u0026") } else { text }
}

/// sprig's `semverCompare`: Masterminds constraints, approximated with the semver crate.
fn semver_compare(constraint: &str, version: &str) -> Result<bool, String> {
    let version = semver::Version::parse(version.trim().trim_start_matches('v')).map_err(|e| format!("{e}"))?;
    for alternative in constraint.split("||") {
        let mut parts = Vec::new();
        for raw in alternative.split(',').flat_map(|p| {
            // "> 1.2 < 2" (space separated AND) -> split on whitespace between comparators
            let mut out = Vec::new();
            let mut current = String::new();
            for token in p.split_whitespace() {
                if token.chars().all(|c| "<>=!~^".contains(c)) {
                    current.push_str(token);
                    continue;
                }
                current.push_str(token);
                out.push(std::mem::take(&mut current));
            }
            out
        }) {
            let c = raw.trim();
            let c = c.replace('v', "");
            let first = c.chars().next().unwrap_or('*');
            let c = if first.is_ascii_digit() { format!("={c}") } else { c };
            let c = if let Some(rest) = c.strip_prefix("!=") {
                parts.push(format!("!{rest}"));
                continue;
            } else {
                c
            };
            parts.push(c);
        }
        let mut ok = true;
        for part in &parts {
            if let Some(neg) = part.strip_prefix('!') {
                let req = semver::VersionReq::parse(&format!("={neg}")).map_err(|e| e.to_string())?;
                if req.matches(&version) {
                    ok = false;
                }
                continue;
            }
            let req = semver::VersionReq::parse(part).map_err(|e| e.to_string())?;
            if !req.matches(&version) {
                ok = false;
            }
        }
        if ok {
            return Ok(true);
        }
    }
    Ok(false)
}

fn call_function(name: &str, args: Vec<GoValue>) -> Result<GoValue, String> {
    use GoValue as V;
    let name = alias(name);
    if name == "mustFromJson" {
        let text = as_str(args.first().unwrap_or(&V::Missing))?;
        return serde_json::from_str::<Value>(&text)
            .map(|v| GoValue::from_json(&v))
            .map_err(|e| format!("error calling mustFromJson: {e}"));
    }
    let s = |v: &GoValue| as_str(v);
    Ok(match name {
        "not" => {
            want_args(name, &args, 1)?;
            V::Bool(!args[0].truthy())
        }
        "len" => {
            want_args(name, &args, 1)?;
            V::Int(match &args[0] {
                V::Str(s) => s.len() as i64,
                V::List(l) => l.len() as i64,
                V::Map(m) => m.len() as i64,
                V::Missing | V::Nil => {
                    return Err("error calling len: reflect: call of reflect.Value.Type on zero Value".into());
                }
                other => return Err(format!("error calling len: len of type {}", other.type_name())),
            })
        }
        "index" => {
            want_min_args(name, &args, 1)?;
            let mut v = args[0].clone();
            for idx in &args[1..] {
                v = match (&v, idx) {
                    (V::List(l), V::Int(_) | V::Float(_)) => {
                        let i = to_i64(idx);
                        if i < 0 || i as usize >= l.len() {
                            return Err(format!("error calling index: index out of range: {i}"));
                        }
                        l[i as usize].clone()
                    }
                    (V::Str(st), V::Int(i)) => {
                        let b = st
                            .as_bytes()
                            .get(*i as usize)
                            .ok_or_else(|| format!("error calling index: index out of range: {i}"))?;
                        V::Int(*b as i64)
                    }
                    (V::Map(m), V::Str(k)) => m.get(k).unwrap_or(V::Nil),
                    (V::Missing | V::Nil, _) => return Err("error calling index: index of untyped nil".into()),
                    (other, _) => {
                        return Err(format!(
                            "error calling index: cannot index slice/array with type {}",
                            idx.type_name()
                        )
                        .replace("slice/array", if matches!(other, V::Map(_)) { "map" } else { "slice/array" }));
                    }
                };
            }
            v
        }
        "slice" => {
            want_min_args(name, &args, 1)?;
            let idx: Vec<i64> = args[1..].iter().map(to_i64).collect();
            match &args[0] {
                V::Str(st) => {
                    let lo = idx.first().copied().unwrap_or(0) as usize;
                    let hi = idx.get(1).copied().map(|h| h as usize).unwrap_or(st.len());
                    V::Str(st.get(lo..hi).ok_or("error calling slice: index out of range")?.to_string())
                }
                V::List(l) => {
                    let lo = idx.first().copied().unwrap_or(0) as usize;
                    let hi = idx.get(1).copied().map(|h| h as usize).unwrap_or(l.len());
                    V::List(l.get(lo..hi).ok_or("error calling slice: index out of range")?.to_vec())
                }
                other => return Err(format!("error calling slice: can't slice item of type {}", other.type_name())),
            }
        }
        "print" => V::Str(go_sprint(&args)),
        "println" => V::Str(format!("{}\n", args.iter().map(GoValue::sprint).collect::<Vec<_>>().join(" "))),
        "printf" => {
            want_min_args(name, &args, 1)?;
            V::Str(sprintf(&s(&args[0])?, &args[1..]))
        }
        "eq" => {
            want_min_args(name, &args, 2)?;
            let mut any = false;
            for b in &args[1..] {
                if go_eq(&args[0], b)? {
                    any = true;
                    break;
                }
            }
            V::Bool(any)
        }
        "ne" => {
            want_args(name, &args, 2)?;
            V::Bool(!go_eq(&args[0], &args[1])?)
        }
        "lt" => {
            want_args(name, &args, 2)?;
            V::Bool(go_lt(&args[0], &args[1])?)
        }
        "le" => {
            want_args(name, &args, 2)?;
            V::Bool(go_lt(&args[0], &args[1])? || go_eq(&args[0], &args[1])?)
        }
        "gt" => {
            want_args(name, &args, 2)?;
            V::Bool(!(go_lt(&args[0], &args[1])? || go_eq(&args[0], &args[1])?))
        }
        "ge" => {
            want_args(name, &args, 2)?;
            V::Bool(!go_lt(&args[0], &args[1])?)
        }
        "html" => V::Str(
            go_sprint(&args)
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('"', "&#34;")
                .replace('\'', "&#39;"),
        ),
        "js" => V::Str(
            go_sprint(&args)
                .replace('\\', "\\\\")
                .replace('\'', "\\'")
                .replace('"', "\\\"")
                .replace('<', "\\u003C")
                .replace('>', "\\u003E"),
        ),
        "urlquery" => {
            let text = go_sprint(&args);
            let mut out = String::new();
            for b in text.bytes() {
                match b {
                    b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(b as char),
                    b' ' => out.push('+'),
                    other => {
                        let _ = write!(out, "%{other:02X}");
                    }
                }
            }
            V::Str(out)
        }
        // ---- sprig strings
        "upper" => {
            want_args(name, &args, 1)?;
            V::Str(s(&args[0])?.to_uppercase())
        }
        "lower" => {
            want_args(name, &args, 1)?;
            V::Str(s(&args[0])?.to_lowercase())
        }
        "title" => {
            want_args(name, &args, 1)?;
            let text = s(&args[0])?;
            let mut out = String::new();
            let mut prev_letter = false;
            for c in text.chars() {
                if !prev_letter && c.is_alphabetic() {
                    out.extend(c.to_uppercase());
                } else {
                    out.push(c);
                }
                prev_letter = c.is_alphanumeric() || c == '_' || c == '\'';
            }
            V::Str(out)
        }
        "untitle" => {
            want_args(name, &args, 1)?;
            let text = s(&args[0])?;
            let mut out = String::new();
            let mut prev_space = true;
            for c in text.chars() {
                if prev_space {
                    out.extend(c.to_lowercase());
                } else {
                    out.push(c);
                }
                prev_space = c.is_whitespace();
            }
            V::Str(out)
        }
        "trim" => {
            want_args(name, &args, 1)?;
            V::Str(s(&args[0])?.trim().to_string())
        }
        "trimAll" => {
            want_args(name, &args, 2)?;
            let cut = s(&args[0])?;
            V::Str(s(&args[1])?.trim_matches(|c| cut.contains(c)).to_string())
        }
        "trimPrefix" => {
            want_args(name, &args, 2)?;
            let text = s(&args[1])?;
            let prefix = s(&args[0])?;
            V::Str(text.strip_prefix(prefix.as_str()).unwrap_or(&text).to_string())
        }
        "trimSuffix" => {
            want_args(name, &args, 2)?;
            let text = s(&args[1])?;
            let suffix = s(&args[0])?;
            V::Str(text.strip_suffix(suffix.as_str()).unwrap_or(&text).to_string())
        }
        "trunc" => {
            want_args(name, &args, 2)?;
            let n = to_i64(&args[0]);
            let text = s(&args[1])?;
            let len = text.len() as i64;
            V::Str(if n < 0 && -n < len {
                text[(len + n) as usize..].to_string()
            } else if n >= 0 && len > n {
                text[..n as usize].to_string()
            } else {
                text
            })
        }
        "repeat" => {
            want_args(name, &args, 2)?;
            V::Str(s(&args[1])?.repeat(to_i64(&args[0]).max(0) as usize))
        }
        "substr" => {
            want_args(name, &args, 3)?;
            let (start, end) = (to_i64(&args[0]), to_i64(&args[1]));
            let text = s(&args[2])?;
            let len = text.len() as i64;
            V::Str(if start < 0 {
                text[..end.clamp(0, len) as usize].to_string()
            } else if end < 0 || end > len {
                text[start.min(len) as usize..].to_string()
            } else {
                text[start.min(end) as usize..end as usize].to_string()
            })
        }
        "nospace" => {
            want_args(name, &args, 1)?;
            V::Str(s(&args[0])?.chars().filter(|c| !c.is_whitespace()).collect())
        }
        "contains" => {
            want_args(name, &args, 2)?;
            V::Bool(s(&args[1])?.contains(&s(&args[0])?))
        }
        "hasPrefix" => {
            want_args(name, &args, 2)?;
            V::Bool(s(&args[1])?.starts_with(&s(&args[0])?))
        }
        "hasSuffix" => {
            want_args(name, &args, 2)?;
            V::Bool(s(&args[1])?.ends_with(&s(&args[0])?))
        }
        "quote" => V::Str(
            args.iter()
                .filter(|a| !matches!(a, V::Missing | V::Nil))
                .map(|a| go_quote(&strval(a)))
                .collect::<Vec<_>>()
                .join(" "),
        ),
        "squote" => V::Str(
            args.iter()
                .filter(|a| !matches!(a, V::Missing | V::Nil))
                .map(|a| format!("'{}'", strval(a)))
                .collect::<Vec<_>>()
                .join(" "),
        ),
        "cat" => {
            V::Str(args.iter().filter(|a| !matches!(a, V::Missing | V::Nil)).map(strval).collect::<Vec<_>>().join(" "))
        }
        "indent" | "nindent" => {
            want_args(name, &args, 2)?;
            let pad = " ".repeat(to_i64(&args[0]).max(0) as usize);
            let text = s(&args[1])?;
            let indented = format!("{pad}{}", text.replace('\n', &format!("\n{pad}")));
            V::Str(if name == "nindent" { format!("\n{indented}") } else { indented })
        }
        "replace" => {
            want_args(name, &args, 3)?;
            V::Str(s(&args[2])?.replace(&s(&args[0])?, &s(&args[1])?))
        }
        "split" => {
            want_args(name, &args, 2)?;
            let sep = s(&args[0])?;
            let text = s(&args[1])?;
            V::Map(
                text.split(sep.as_str()).enumerate().map(|(i, p)| (format!("_{i}"), V::Str(p.to_string()))).collect(),
            )
        }
        "splitList" => {
            want_args(name, &args, 2)?;
            let sep = s(&args[0])?;
            V::List(s(&args[1])?.split(sep.as_str()).map(|p| V::Str(p.to_string())).collect())
        }
        "splitn" => {
            want_args(name, &args, 3)?;
            let sep = s(&args[0])?;
            let n = to_i64(&args[1]).max(0) as usize;
            let text = s(&args[2])?;
            V::Map(
                text.splitn(n, sep.as_str())
                    .enumerate()
                    .map(|(i, p)| (format!("_{i}"), V::Str(p.to_string())))
                    .collect(),
            )
        }
        "join" => {
            want_args(name, &args, 2)?;
            let sep = s(&args[0])?;
            let items: Vec<String> = match &args[1] {
                V::List(l) => l.iter().map(strval).collect(),
                V::Str(st) => vec![st.clone()],
                other => vec![strval(other)],
            };
            V::Str(items.join(&sep))
        }
        "toString" => {
            want_args(name, &args, 1)?;
            V::Str(strval(&args[0]))
        }
        "toStrings" => {
            want_args(name, &args, 1)?;
            V::List(as_list(&args[0], name)?.iter().map(|v| V::Str(strval(v))).collect())
        }
        "sortAlpha" => {
            want_args(name, &args, 1)?;
            let mut items: Vec<String> = as_list(&args[0], name)?.iter().map(strval).collect();
            items.sort();
            V::List(items.into_iter().map(V::Str).collect())
        }
        "abbrev" => {
            want_args(name, &args, 2)?;
            let width = to_i64(&args[0]);
            let text = s(&args[1])?;
            V::Str(if width < 4 || text.len() as i64 <= width {
                text
            } else {
                format!("{}...", &text[..(width - 3) as usize])
            })
        }
        "regexMatch" => {
            want_args(name, &args, 2)?;
            V::Bool(regex(&s(&args[0])?)?.is_match(&s(&args[1])?))
        }
        "regexFind" => {
            want_args(name, &args, 2)?;
            V::Str(regex(&s(&args[0])?)?.find(&s(&args[1])?).map(|m| m.as_str().to_string()).unwrap_or_default())
        }
        "regexFindAll" => {
            want_args(name, &args, 3)?;
            let re = regex(&s(&args[0])?)?;
            let text = s(&args[1])?;
            let n = to_i64(&args[2]);
            let all = re.find_iter(&text).map(|m| V::Str(m.as_str().to_string()));
            V::List(if n < 0 { all.collect() } else { all.take(n as usize).collect() })
        }
        "regexReplaceAll" | "regexReplaceAllLiteral" => {
            want_args(name, &args, 3)?;
            let re = regex(&s(&args[0])?)?;
            let text = s(&args[1])?;
            let repl = s(&args[2])?;
            V::Str(if name == "regexReplaceAll" {
                re.replace_all(&text, repl.as_str()).into_owned()
            } else {
                re.replace_all(&text, regex::NoExpand(&repl)).into_owned()
            })
        }
        "regexSplit" => {
            want_args(name, &args, 3)?;
            let re = regex(&s(&args[0])?)?;
            let text = s(&args[1])?;
            let n = to_i64(&args[2]);
            V::List(if n < 0 {
                re.split(&text).map(|p| V::Str(p.to_string())).collect()
            } else {
                re.splitn(&text, n as usize).map(|p| V::Str(p.to_string())).collect()
            })
        }
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
        "snakecase" | "kebabcase" => {
            want_args(name, &args, 1)?;
            let sep = if name == "snakecase" { '_' } else { '-' };
            let text = s(&args[0])?;
            let mut out = String::new();
            let chars: Vec<char> = text.chars().collect();
            for (i, c) in chars.iter().enumerate() {
                if c.is_uppercase() {
                    let prev_lower = i > 0 && (chars[i - 1].is_lowercase() || chars[i - 1].is_ascii_digit());
                    let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
                    let prev_upper = i > 0 && chars[i - 1].is_uppercase();
                    if i > 0 && (prev_lower || (prev_upper && next_lower)) && !out.ends_with(sep) {
                        out.push(sep);
                    }
                    out.extend(c.to_lowercase());
                } else if matches!(c, ' ' | '-' | '_') {
                    if !out.is_empty() && !out.ends_with(sep) {
                        out.push(sep);
                    }
                } else {
                    out.push(*c);
                }
            }
            V::Str(out)
        }
        "camelcase" => {
            want_args(name, &args, 1)?;
            V::Str(
                s(&args[0])?
                    .split(['_', ' ', '-'])
                    .filter(|p| !p.is_empty())
                    .map(|p| {
                        let mut cs = p.chars();
                        cs.next().map(|f| f.to_uppercase().collect::<String>() + cs.as_str()).unwrap_or_default()
                    })
                    .collect(),
            )
        }
        // ---- sprig numbers
        "atoi" => {
            want_args(name, &args, 1)?;
            V::Int(s(&args[0])?.trim().parse::<i64>().unwrap_or(0))
        }
        "int" | "int64" => {
            want_args(name, &args, 1)?;
            V::Int(to_i64(&args[0]))
        }
        "float64" => {
            want_args(name, &args, 1)?;
            V::Float(to_f64(&args[0]))
        }
        "add" => V::Int(args.iter().map(to_i64).sum()),
        "add1" => {
            want_args(name, &args, 1)?;
            V::Int(to_i64(&args[0]) + 1)
        }
        "sub" => {
            want_args(name, &args, 2)?;
            V::Int(to_i64(&args[0]) - to_i64(&args[1]))
        }
        "mul" => V::Int(args.iter().map(to_i64).product()),
        "div" | "mod" => {
            want_args(name, &args, 2)?;
            let (a, b) = (to_i64(&args[0]), to_i64(&args[1]));
            if b == 0 {
                return Err("error calling ".to_string() + name + ": runtime error: integer divide by zero");
            }
            V::Int(if name == "div" { a / b } else { a % b })
        }
        "max" | "min" => {
            want_min_args(name, &args, 1)?;
            let values = args.iter().map(to_i64);
            V::Int(if name == "max" { values.max().unwrap_or(0) } else { values.min().unwrap_or(0) })
        }
        "floor" => {
            want_args(name, &args, 1)?;
            V::Float(to_f64(&args[0]).floor())
        }
        "ceil" => {
            want_args(name, &args, 1)?;
            V::Float(to_f64(&args[0]).ceil())
        }
        "round" => {
            want_min_args(name, &args, 2)?;
            let p = 10f64.powi(to_i64(&args[1]) as i32);
            V::Float((to_f64(&args[0]) * p).round() / p)
        }
        "until" => {
            want_args(name, &args, 1)?;
            let n = to_i64(&args[0]);
            V::List(if n >= 0 { (0..n).map(V::Int).collect() } else { (n + 1..=0).rev().map(V::Int).collect() })
        }
        "untilStep" => {
            want_args(name, &args, 3)?;
            let (start, stop, step) = (to_i64(&args[0]), to_i64(&args[1]), to_i64(&args[2]));
            let mut out = Vec::new();
            if step > 0 {
                let mut i = start;
                while i < stop {
                    out.push(V::Int(i));
                    i += step;
                }
            } else if step < 0 {
                let mut i = start;
                while i > stop {
                    out.push(V::Int(i));
                    i += step;
                }
            }
            V::List(out)
        }
        "seq" => {
            let nums: Vec<i64> = args.iter().map(to_i64).collect();
            let (start, step, end) = match nums.as_slice() {
                [end] => (1, if *end >= 1 { 1 } else { -1 }, *end),
                [start, end] => (*start, if end >= start { 1 } else { -1 }, *end),
                [start, step, end] => (*start, *step, *end),
                _ => return Err(format!("wrong number of args for seq: want 1-3 got {}", args.len())),
            };
            let mut out = Vec::new();
            if step != 0 {
                let mut i = start;
                while (step > 0 && i <= end) || (step < 0 && i >= end) {
                    out.push(i.to_string());
                    i += step;
                }
            }
            V::Str(out.join(" "))
        }
        // ---- sprig defaults and flow
        "default" => {
            want_min_args(name, &args, 1)?;
            if args.len() == 1 || is_empty(&args[1]) { args[0].clone() } else { args[1].clone() }
        }
        "empty" => {
            want_args(name, &args, 1)?;
            V::Bool(is_empty(&args[0]))
        }
        "coalesce" => args.iter().find(|a| !is_empty(a)).cloned().unwrap_or(V::Nil),
        "all" => V::Bool(args.iter().all(|a| !is_empty(a))),
        "any" => V::Bool(args.iter().any(|a| !is_empty(a))),
        "ternary" => {
            want_args(name, &args, 3)?;
            let cond = match &args[2] {
                V::Bool(b) => *b,
                other => return Err(format!("wrong type for value; expected bool; got {}", other.type_name())),
            };
            if cond { args[0].clone() } else { args[1].clone() }
        }
        "fail" => {
            want_args(name, &args, 1)?;
            return Err(format!("error calling fail: {}", s(&args[0])?));
        }
        // ---- sprig lists
        "list" => V::List(args.into_iter().map(|a| if matches!(a, V::Missing) { V::Nil } else { a }).collect()),
        "first" | "last" | "rest" | "initial" | "reverse" | "uniq" | "compact" => {
            want_args(name, &args, 1)?;
            let l = as_list(&args[0], name)?;
            match name {
                "first" => l.first().cloned().unwrap_or(V::Nil),
                "last" => l.last().cloned().unwrap_or(V::Nil),
                "rest" => V::List(l.iter().skip(1).cloned().collect()),
                "initial" => V::List(l[..l.len().saturating_sub(1)].to_vec()),
                "reverse" => V::List(l.into_iter().rev().collect()),
                "uniq" => {
                    let mut out: Vec<GoValue> = Vec::new();
                    for item in l {
                        if !out.contains(&item) {
                            out.push(item);
                        }
                    }
                    V::List(out)
                }
                _ => V::List(l.into_iter().filter(|v| !is_empty(v)).collect()),
            }
        }
        "append" | "push" => {
            want_args(name, &args, 2)?;
            let mut l = as_list(&args[0], name)?;
            l.push(args[1].clone());
            V::List(l)
        }
        "prepend" => {
            want_args(name, &args, 2)?;
            let mut l = as_list(&args[0], name)?;
            l.insert(0, args[1].clone());
            V::List(l)
        }
        "concat" => {
            let mut out = Vec::new();
            for a in &args {
                out.extend(as_list(a, name)?);
            }
            V::List(out)
        }
        "without" => {
            want_min_args(name, &args, 1)?;
            let l = as_list(&args[0], name)?;
            V::List(l.into_iter().filter(|v| !args[1..].contains(v)).collect())
        }
        "has" => {
            want_args(name, &args, 2)?;
            V::Bool(as_list(&args[1], name)?.contains(&args[0]))
        }
        // ---- sprig dicts
        "dict" => {
            let mut map = BTreeMap::new();
            for pair in args.chunks(2) {
                let key = strval(&pair[0]);
                map.insert(key, pair.get(1).cloned().unwrap_or(V::Str(String::new())));
            }
            V::Map(GoMap::new(map))
        }
        "get" => {
            want_args(name, &args, 2)?;
            as_map(&args[0])?.get(&s(&args[1])?).unwrap_or(V::Str(String::new()))
        }
        // set, unset and merge change the map itself, as in Go.
        "set" => {
            want_args(name, &args, 3)?;
            let map = as_map(&args[0])?;
            map.insert(s(&args[1])?, args[2].clone());
            V::Map(map)
        }
        "unset" => {
            want_args(name, &args, 2)?;
            let map = as_map(&args[0])?;
            map.remove(&s(&args[1])?);
            V::Map(map)
        }
        "hasKey" => {
            want_args(name, &args, 2)?;
            V::Bool(as_map(&args[0])?.contains_key(&s(&args[1])?))
        }
        "keys" => {
            let mut keys = Vec::new();
            for a in &args {
                keys.extend(as_map(a)?.entries().into_iter().map(|(k, _)| V::Str(k)));
            }
            V::List(keys)
        }
        "values" => {
            want_args(name, &args, 1)?;
            V::List(as_map(&args[0])?.entries().into_iter().map(|(_, v)| v).collect())
        }
        "pick" | "omit" => {
            want_min_args(name, &args, 1)?;
            let map = as_map(&args[0])?;
            let names: Vec<String> = args[1..].iter().map(strval).collect();
            V::Map(map.entries().into_iter().filter(|(k, _)| names.contains(k) == (name == "pick")).collect())
        }
        "merge" => {
            want_min_args(name, &args, 1)?;
            let dst = as_map(&args[0])?;
            for src in &args[1..] {
                merge_maps(&dst, &as_map(src)?);
            }
            V::Map(dst)
        }
        "dig" => {
            want_min_args(name, &args, 3)?;
            let n = args.len();
            let mut current = args[n - 1].clone();
            for key in &args[..n - 2] {
                let k = s(key)?;
                current = match current {
                    V::Map(m) => match m.get(&k) {
                        Some(v) => v,
                        None => return Ok(args[n - 2].clone()),
                    },
                    _ => return Ok(args[n - 2].clone()),
                };
            }
            current
        }
        "pluck" => {
            want_min_args(name, &args, 1)?;
            let key = s(&args[0])?;
            V::List(args[1..].iter().filter_map(|m| as_map(m).ok()?.get(&key)).collect())
        }
        // ---- encoding and types
        "toJson" | "toRawJson" => {
            want_args(name, &args, 1)?;
            V::Str(json_marshal(&args[0], false, name == "toJson"))
        }
        "toPrettyJson" => {
            want_args(name, &args, 1)?;
            V::Str(json_marshal(&args[0], true, true))
        }
        "fromJson" => {
            want_args(name, &args, 1)?;
            match serde_json::from_str::<Value>(&s(&args[0])?) {
                Ok(v) => GoValue::from_json(&v),
                Err(_) => V::Nil,
            }
        }
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
        "semver" => {
            want_args(name, &args, 1)?;
            let text = s(&args[0])?;
            let v = semver::Version::parse(text.trim_start_matches('v'))
                .map_err(|e| format!("error calling semver: {e}"))?;
            let map = GoMap::default();
            map.insert("Major".to_string(), V::Int(v.major as i64));
            map.insert("Minor".to_string(), V::Int(v.minor as i64));
            map.insert("Patch".to_string(), V::Int(v.patch as i64));
            map.insert("Prerelease".to_string(), V::Str(v.pre.to_string()));
            map.insert("Metadata".to_string(), V::Str(v.build.to_string()));
            map.insert("Original".to_string(), V::Str(text));
            V::Map(map)
        }
        "semverCompare" => {
            want_args(name, &args, 2)?;
            V::Bool(
                semver_compare(&s(&args[0])?, &s(&args[1])?)
                    .map_err(|e| format!("error calling semverCompare: {e}"))?,
            )
        }
        "mergeOverwrite" => {
            want_min_args(name, &args, 1)?;
            let dst = as_map(&args[0])?;
            for src in &args[1..] {
                merge_overwrite(&dst, &as_map(src)?);
            }
            V::Map(dst)
        }
        "deepCopy" => {
            want_args(name, &args, 1)?;
            deep_copy(&args[0])
        }
        "chunk" => {
            want_args(name, &args, 2)?;
            let size = to_i64(&args[0]).max(1) as usize;
            V::List(as_list(&args[1], name)?.chunks(size).map(|c| V::List(c.to_vec())).collect())
        }
        "addf" => V::Float(args.iter().map(to_f64).sum()),
        "add1f" => {
            want_args(name, &args, 1)?;
            V::Float(to_f64(&args[0]) + 1.0)
        }
        "subf" => {
            want_min_args(name, &args, 1)?;
            V::Float(args[1..].iter().fold(to_f64(&args[0]), |acc, v| acc - to_f64(v)))
        }
        "mulf" => V::Float(args.iter().map(to_f64).product()),
        "divf" => {
            want_min_args(name, &args, 1)?;
            V::Float(args[1..].iter().fold(to_f64(&args[0]), |acc, v| acc / to_f64(v)))
        }
        "maxf" => V::Float(args.iter().map(to_f64).fold(f64::NEG_INFINITY, f64::max)),
        "minf" => V::Float(args.iter().map(to_f64).fold(f64::INFINITY, f64::min)),
        "base" | "dir" | "ext" | "clean" | "isAbs" => {
            want_args(name, &args, 1)?;
            let p = s(&args[0])?;
            match name {
                "clean" => V::Str(clean_path(&p)),
                "isAbs" => V::Bool(p.starts_with('/')),
                "ext" => {
                    let last = p.rsplit('/').next().unwrap_or("");
                    V::Str(last.rfind('.').map(|i| last[i..].to_string()).unwrap_or_default())
                }
                "base" => {
                    let trimmed = p.trim_end_matches('/');
                    V::Str(if p.is_empty() {
                        ".".into()
                    } else if trimmed.is_empty() {
                        "/".into()
                    } else {
                        trimmed.rsplit('/').next().unwrap_or("").to_string()
                    })
                }
                _ => V::Str(clean_path(p.rfind('/').map(|i| &p[..=i]).unwrap_or(""))),
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
        "plural" => {
            want_args(name, &args, 3)?;
            V::Str(if to_i64(&args[2]) == 1 { s(&args[0])? } else { s(&args[1])? })
        }
        "swapcase" => {
            want_args(name, &args, 1)?;
            V::Str(
                s(&args[0])?
                    .chars()
                    .map(|c| {
                        if c.is_uppercase() { c.to_lowercase().collect::<String>() } else { c.to_uppercase().collect() }
                    })
                    .collect(),
            )
        }
        "initials" => {
            want_args(name, &args, 1)?;
            V::Str(s(&args[0])?.split_whitespace().filter_map(|w| w.chars().next()).collect())
        }
        "regexQuoteMeta" => {
            want_args(name, &args, 1)?;
            V::Str(regex::escape(&s(&args[0])?))
        }
        "toDecimal" => {
            want_args(name, &args, 1)?;
            V::Int(i64::from_str_radix(&strval(&args[0]), 8).unwrap_or(0))
        }
        "typeIsLike" => {
            want_args(name, &args, 2)?;
            let t = s(&args[0])?;
            let actual = args[1].type_name();
            V::Bool(t == actual || t == format!("*{actual}"))
        }
        "hello" => V::Str("Hello!".into()),
        other => return Err(format!("function \"{other}\" not defined")),
    })
}

/// sprig's `mergeOverwrite`: values of `src` win, nested maps merged.
fn merge_overwrite(dst: &GoMap, src: &GoMap) {
    for (k, v) in src.entries() {
        match (dst.get(&k), &v) {
            (Some(GoValue::Map(d)), GoValue::Map(s)) => merge_overwrite(&d, s),
            _ => dst.insert(k, v),
        }
    }
}

/// sprig's `merge` (mergo without overwrite): keys missing or empty in `dst` are taken from
/// `src`, nested maps merged.
fn merge_maps(dst: &GoMap, src: &GoMap) {
    for (k, v) in src.entries() {
        match (dst.get(&k), &v) {
            (Some(GoValue::Map(d)), GoValue::Map(s)) => merge_maps(&d, s),
            (Some(existing), _) if !is_empty(&existing) => {}
            _ => dst.insert(k, v),
        }
    }
}

/// `fmt.Sprint`: spaces between operands when neither is a string.
fn go_sprint(args: &[GoValue]) -> String {
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
fn go_quote(s: &str) -> String {
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

fn go_exp(f: f64, prec: usize) -> String {
    let s = format!("{f:.prec$e}");
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

/// Parses and executes `src` as CAPI does for a patch value: name "tpl", the hermetic sprig
/// functions, `data` as dot.
pub fn render(src: &str, data: &GoValue) -> Result<String, TemplateError> {
    Template::parse("tpl", src)?.execute(data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(src: &str, data: Value) -> Result<String, String> {
        render(src, &GoValue::from_json(&data)).map_err(|e| e.message)
    }

    #[test]
    fn builtin_field_access_and_missing_keys() {
        let data = json!({"builtin": {"cluster": {"name": "c1", "namespace": "ns"}}, "nullish": null});
        assert_eq!(run("{{ .builtin.cluster.name }}-x", data.clone()).unwrap(), "c1-x");
        assert_eq!(run("{{ .builtin.machinePool.class }}", data.clone()).unwrap(), "<no value>");
        let err = run("{{ .nullish.x }}", data).unwrap_err();
        assert!(err.contains("nil pointer evaluating interface {}.x"), "{err}");
    }

    #[test]
    fn floats_print_like_go() {
        assert_eq!(format_float_g(3.0), "3");
        assert_eq!(format_float_g(2.5), "2.5");
        assert_eq!(format_float_g(100000.0), "100000");
        assert_eq!(format_float_g(1000000.0), "1e+06");
        assert_eq!(format_float_g(1234567.0), "1.234567e+06");
        assert_eq!(format_float_g(0.0001), "0.0001");
        assert_eq!(format_float_g(0.00001), "1e-05");
        assert_eq!(format_float_g(-12.75), "-12.75");
    }

    #[test]
    fn control_structures() {
        let data = json!({"pools": ["a", "b"], "m": {"z": 1, "a": 2}, "on": true, "n": 0});
        assert_eq!(run("{{ range $i, $p := .pools }}{{ $i }}={{ $p }};{{ end }}", data.clone()).unwrap(), "0=a;1=b;");
        assert_eq!(run("{{ range $k, $v := .m }}{{ $k }}{{ $v }}{{ end }}", data.clone()).unwrap(), "a2z1");
        assert_eq!(run("{{ if .n }}x{{ else if .on }}y{{ else }}z{{ end }}", data.clone()).unwrap(), "y");
        assert_eq!(run("{{ with .missing }}x{{ else }}none{{ end }}", data.clone()).unwrap(), "none");
        assert_eq!(run("{{ range .none }}x{{ else }}empty{{ end }}", data.clone()).unwrap(), "empty");
        assert_eq!(
            run("{{ range .pools }}{{ if eq . \"b\" }}{{ break }}{{ end }}{{ . }}{{ end }}", data.clone()).unwrap(),
            "a"
        );
        assert_eq!(run("a  {{- \"b\" -}}  c", data.clone()).unwrap(), "abc");
        assert_eq!(run("{{/* comment */}}x{{- /* c2 */ -}} y", data.clone()).unwrap(), "xy");
        assert_eq!(run("{{ $x := 1 }}{{ if true }}{{ $x = 2 }}{{ end }}{{ $x }}", data).unwrap(), "2");
    }

    #[test]
    fn go_comparison_rules() {
        let data = json!({"replicas": 3});
        // JSON numbers are float64 in Go: comparing with an int literal fails like in CAPI.
        let err = run("{{ eq .replicas 3 }}", data.clone()).unwrap_err();
        assert!(err.contains("incompatible types for comparison"), "{err}");
        assert_eq!(run("{{ eq .replicas 3.0 }}", data.clone()).unwrap(), "true");
        assert_eq!(run("{{ gt (int .replicas) 2 }}", data.clone()).unwrap(), "true");
        assert_eq!(run("{{ eq \"a\" \"b\" \"a\" }}", data).unwrap(), "true");
    }

    #[test]
    fn sprig_functions() {
        let data = json!({"name": "My-Cluster", "list": ["x", "y"], "empty": ""});
        assert_eq!(run("{{ .name | lower | quote }}", data.clone()).unwrap(), "\"my-cluster\"");
        assert_eq!(run("{{ .empty | default \"dflt\" }}", data.clone()).unwrap(), "dflt");
        assert_eq!(run("{{ join \",\" .list }}", data.clone()).unwrap(), "x,y");
        assert_eq!(run("{{ .list | toJson }}", data.clone()).unwrap(), "[\"x\",\"y\"]");
        assert_eq!(run("{{ add 1 2 3 }} {{ sub 5 2 }}", data.clone()).unwrap(), "6 3");
        assert_eq!(run("{{ ternary \"a\" \"b\" true }}", data.clone()).unwrap(), "a");
        assert_eq!(run("{{ \"abc\" | b64enc }}", data.clone()).unwrap(), "YWJj");
        assert_eq!(run("{{ printf \"%s-%03d\" .name 7 }}", data.clone()).unwrap(), "My-Cluster-007");
        assert_eq!(run("{{ replace \"-\" \"_\" .name | upper }}", data.clone()).unwrap(), "MY_CLUSTER");
        assert_eq!(run("{{ trimPrefix \"My-\" .name }}", data.clone()).unwrap(), "Cluster");
        assert_eq!(run("{{ semverCompare \">=1.30.0\" \"v1.31.2\" }}", data).unwrap(), "true");
    }

    #[test]
    fn parse_and_exec_errors_name_the_place() {
        let err = run("line1\n{{ nosuch .x }}", json!({})).unwrap_err();
        assert_eq!(err, "template: tpl:2: function \"nosuch\" not defined");
        let err = run("{{ if .x }}", json!({})).unwrap_err();
        assert!(err.starts_with("template: tpl:1: unexpected EOF"), "{err}");
        let err = run("x\n  {{ .a.b.c }}", json!({"a": {"b": null}})).unwrap_err();
        assert_eq!(err, "template: tpl:2:7: executing \"tpl\" at <.a.b.c>: nil pointer evaluating interface {}.c");
    }
}

//! The template lexer: splits text and `{{ }}` actions into tokens, with Go's trim markers and errors.

use super::{TemplateError, parse_error};

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
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
pub(super) struct Token {
    pub(super) tok: Tok,
    pub(super) pos: usize,
}

pub(super) const KEYWORDS: &[&str] =
    &["if", "else", "end", "range", "with", "define", "template", "block", "break", "continue"];

pub(super) struct Lexer<'a> {
    pub(super) src: &'a str,
    pub(super) name: &'a str,
    pub(super) pos: usize,
    pub(super) tokens: Vec<Token>,
}

pub(super) fn line_of(src: &str, pos: usize) -> usize {
    src[..pos.min(src.len())].matches('\n').count() + 1
}

pub(super) fn col_of(src: &str, pos: usize) -> usize {
    let start = src[..pos.min(src.len())].rfind('\n').map(|i| i + 1).unwrap_or(0);
    pos - start
}

impl<'a> Lexer<'a> {
    pub(super) fn err(&self, pos: usize, msg: impl std::fmt::Display) -> TemplateError {
        parse_error(self.name, line_of(self.src, pos), msg)
    }

    pub(super) fn run(mut self) -> Result<Vec<Token>, TemplateError> {
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
    pub(super) fn lex_action(&mut self) -> Result<bool, TemplateError> {
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
                '`' => self.lex_raw_quoted()?,
                '\'' => {
                    let ch = self.lex_char()?;
                    self.tokens.push(Token { tok: Tok::Char(ch), pos: start });
                }
                '$' => self.lex_variable(),
                '.' => self.lex_dot(),
                c if c.is_ascii_digit()
                    || ((c == '-' || c == '+') && rest[1..].starts_with(|d: char| d.is_ascii_digit() || d == '.')) =>
                {
                    let n = self.lex_number();
                    self.tokens.push(Token { tok: Tok::Number(n), pos: start });
                }
                c if is_ident_start(c) => self.lex_word(),
                other => return Err(self.err(start, format!("unexpected {other:?} in command"))),
            }
        }
    }

    /// A raw string: `` `...` `` (no escapes).
    fn lex_raw_quoted(&mut self) -> Result<(), TemplateError> {
        let (start, rest) = (self.pos, &self.src[self.pos..]);
        let Some(end) = rest[1..].find('`') else {
            return Err(self.err(start, "unterminated raw quoted string"));
        };
        let s = rest[1..1 + end].to_string();
        self.pos += end + 2;
        self.tokens.push(Token { tok: Tok::Str(s), pos: start });
        Ok(())
    }

    /// A variable (`$`, `$name`) and the fields after it (`$x.a.b`).
    fn lex_variable(&mut self) {
        let (src, start) = (self.src, self.pos);
        self.pos += 1;
        let name_len = src[self.pos..].find(|c: char| !is_ident_char(c)).unwrap_or(src.len() - self.pos);
        let name = format!("${}", &src[self.pos..self.pos + name_len]);
        self.pos += name_len;
        let fields = if src[self.pos..].starts_with('.') { self.lex_fields() } else { Vec::new() };
        self.tokens.push(Token { tok: Tok::Var(name, fields), pos: start });
    }

    /// At a `.`: a field chain (`.a.b`), a number (`.5`) or the dot itself.
    fn lex_dot(&mut self) {
        let (src, start) = (self.src, self.pos);
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

    /// A word: `true`, `false`, `nil`, a keyword or a function name.
    fn lex_word(&mut self) {
        let (start, rest) = (self.pos, &self.src[self.pos..]);
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

    pub(super) fn push(&mut self, tok: Tok, len: usize) {
        self.tokens.push(Token { tok, pos: self.pos });
        self.pos += len;
    }

    /// `.a.b.c` starting at a `.`.
    pub(super) fn lex_fields(&mut self) -> Vec<String> {
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

    pub(super) fn lex_number(&mut self) -> String {
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

    pub(super) fn lex_quoted(&mut self) -> Result<String, TemplateError> {
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

    pub(super) fn lex_char(&mut self) -> Result<char, TemplateError> {
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

pub(super) fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

pub(super) fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

//! The template parser: tokens to a tree of nodes, pipelines and operands, with `define`d templates.

use std::collections::BTreeMap;

use super::functions::FUNCTIONS;
use super::lexer::{Lexer, Tok, Token, line_of};
use super::limits::MAX_NESTING;
use super::value::parse_number;
use super::{GoValue, TemplateError, parse_error};

#[derive(Debug, Clone)]
pub(super) enum Node {
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
pub(super) struct Pipeline {
    pub(super) decl: Vec<String>,
    pub(super) assign: bool,
    pub(super) cmds: Vec<Command>,
    pub(super) pos: usize,
    pub(super) text: String,
}

#[derive(Debug, Clone)]
pub(super) struct Command {
    pub(super) args: Vec<Operand>,
    pub(super) pos: usize,
    pub(super) text: String,
}

#[derive(Debug, Clone)]
pub(super) enum Operand {
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
    pub(super) name: String,
    pub(super) src: String,
    pub(super) root: Vec<Node>,
    pub(super) defines: BTreeMap<String, Vec<Node>>,
    pub(super) options: Options,
}

/// How CAPI sets up a template: patches use sprig and print a missing key as `<no value>`;
/// naming templates (`internal/topology/names`) have Go's builtins only and `missingkey=error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Options {
    /// Go's builtin functions only (no `Funcs(...)`): any other function fails to parse.
    pub go_builtins_only: bool,
    /// `Option("missingkey=error")`: a missing map key is an execution error.
    pub missing_key_error: bool,
}

/// Go's own template functions (`text/template`'s builtins).
const GO_BUILTINS: &[&str] = &[
    "and", "call", "html", "index", "slice", "js", "len", "not", "or", "print", "printf", "println", "urlquery", "eq",
    "ge", "gt", "le", "lt", "ne",
];

pub(super) struct Parser<'a> {
    pub(super) tokens: Vec<Token>,
    pub(super) i: usize,
    pub(super) src: &'a str,
    pub(super) name: &'a str,
    pub(super) defines: BTreeMap<String, Vec<Node>>,
    pub(super) vars: Vec<Vec<String>>,
    /// Blocks and parenthesised pipelines open around the current token.
    pub(super) depth: usize,
    pub(super) go_builtins_only: bool,
}

pub(super) enum ListEnd {
    Eof,
    End,
    Else(usize),
}

impl<'a> Parser<'a> {
    pub(super) fn peek(&self) -> &Tok {
        &self.tokens[self.i].tok
    }
    pub(super) fn peek_at(&self, n: usize) -> &Tok {
        let idx = (self.i + n).min(self.tokens.len() - 1);
        &self.tokens[idx].tok
    }
    pub(super) fn pos(&self) -> usize {
        self.tokens[self.i].pos
    }
    fn next(&mut self) -> Token {
        let t = self.tokens[self.i].clone();
        if self.i < self.tokens.len() - 1 {
            self.i += 1;
        }
        t
    }
    pub(super) fn err(&self, msg: impl std::fmt::Display) -> TemplateError {
        parse_error(self.name, line_of(self.src, self.pos()), msg)
    }
    pub(super) fn unexpected(&self, context: &str) -> TemplateError {
        let what = match self.peek() {
            Tok::Right => "\"}}\"".to_string(),
            Tok::Eof => return self.err(format!("unexpected EOF in {context}")),
            Tok::RParen => "\")\"".to_string(),
            Tok::Pipe => "\"|\"".to_string(),
            other => format!("{other:?}"),
        };
        self.err(format!("unexpected {what} in {context}"))
    }

    /// Runs `parse` one nesting level deeper, within [`MAX_NESTING`].
    fn nested<T>(&mut self, parse: impl FnOnce(&mut Self) -> Result<T, TemplateError>) -> Result<T, TemplateError> {
        if self.depth >= MAX_NESTING {
            return Err(self.err(format!(
                "blocks and parenthesized pipelines nested more than {MAX_NESTING} deep (kubectl-capz's limit)"
            )));
        }
        self.depth += 1;
        let result = parse(self);
        self.depth -= 1;
        result
    }

    pub(super) fn parse_list(&mut self) -> Result<(Vec<Node>, ListEnd), TemplateError> {
        self.nested(Self::parse_list_items)
    }

    fn parse_list_items(&mut self) -> Result<(Vec<Node>, ListEnd), TemplateError> {
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

    pub(super) fn expect_right(&mut self, context: &str) -> Result<(), TemplateError> {
        if matches!(self.peek(), Tok::Right) {
            self.next();
            Ok(())
        } else {
            Err(self.unexpected(context))
        }
    }

    pub(super) fn parse_control(&mut self, kind: &str) -> Result<Node, TemplateError> {
        self.vars.push(Vec::new());
        let pipe = self.parse_pipeline(kind, true)?;
        let (body, end) = self.parse_list()?;
        let mut else_list = Vec::new();
        match end {
            ListEnd::Eof => {
                return Err(self.err("unexpected EOF"));
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
    pub(super) fn parse_pipeline(&mut self, context: &str, allow_decl: bool) -> Result<Pipeline, TemplateError> {
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
                Tok::Eof => return Err(self.err("unclosed action")),
                _ => {
                    cmds.push(self.parse_command()?);
                    if !matches!(self.peek(), Tok::Pipe | Tok::Right | Tok::RParen) {
                        return Err(self.unexpected("operand"));
                    }
                }
            }
        }
    }

    pub(super) fn var_known(&self, name: &str) -> bool {
        name == "$" || self.vars.iter().any(|scope| scope.iter().any(|v| v == name))
    }

    pub(super) fn declare(&mut self, decl: &[String], assign: bool) {
        if !assign && let Some(scope) = self.vars.last_mut() {
            scope.extend(decl.iter().cloned());
        }
    }

    pub(super) fn parse_command(&mut self) -> Result<Command, TemplateError> {
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

    pub(super) fn parse_operand(&mut self) -> Result<Operand, TemplateError> {
        let tok = self.next();
        Ok(match tok.tok {
            Tok::Ident(name) => {
                let known = if self.go_builtins_only { GO_BUILTINS } else { FUNCTIONS };
                if !known.contains(&name.as_str()) {
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
                let pipe = self.nested(|p| p.parse_pipeline("parenthesized pipeline", false))?;
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

impl Template {
    /// Parses `src` as template `name` (CAPI uses "tpl") with the hermetic sprig functions.
    pub fn parse(name: &str, src: &str) -> Result<Template, TemplateError> {
        Template::parse_with(name, src, Options::default())
    }

    /// Parses `src` as template `name` set up as `options` say.
    pub fn parse_with(name: &str, src: &str, options: Options) -> Result<Template, TemplateError> {
        let tokens = Lexer { src, name, pos: 0, tokens: Vec::new() }.run()?;
        let mut parser = Parser {
            tokens,
            i: 0,
            src,
            name,
            defines: BTreeMap::new(),
            vars: vec![Vec::new()],
            depth: 0,
            go_builtins_only: options.go_builtins_only,
        };
        let (root, end) = parser.parse_list()?;
        match end {
            ListEnd::Eof => {}
            ListEnd::End => return Err(parse_error(name, line_of(src, parser.pos()), "unexpected {{end}}")),
            ListEnd::Else(pos) => return Err(parse_error(name, line_of(src, pos), "unexpected {{else}}")),
        }
        Ok(Template { name: name.to_string(), src: src.to_string(), root, defines: parser.defines, options })
    }
}

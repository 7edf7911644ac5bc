//! Template execution: walks the parsed tree with dot and variables, evaluates pipelines and calls functions.

use super::functions::call_function;
use super::lexer::{col_of, line_of};
use super::limits::{self, MAX_RANGE_ITERATIONS, MAX_STRING_BYTES, MAX_TEMPLATE_CALLS};
use super::parser::{Command, Node, Operand, Pipeline, Template};
use super::printf::go_quote;
use super::{GoValue, TemplateError};

impl Template {
    /// Executes the template with `data` as dot.
    pub fn execute(&self, data: &GoValue) -> Result<String, TemplateError> {
        let mut state = State {
            tpl: self,
            vars: vec![("$".to_string(), data.clone())],
            out: String::new(),
            depth: 0,
            iterations: 0,
        };
        state.walk_list(&self.root, data, &self.name)?;
        Ok(state.out)
    }
}

// ---------------------------------------------------------------------------------------------
// Execution

pub(super) enum Flow {
    Normal,
    Break,
    Continue,
}

pub(super) struct State<'a> {
    pub(super) tpl: &'a Template,
    pub(super) vars: Vec<(String, GoValue)>,
    pub(super) out: String,
    pub(super) depth: usize,
    /// `range` iterations so far, all loops together.
    pub(super) iterations: u64,
}

impl State<'_> {
    pub(super) fn exec_err(&self, tpl_name: &str, pos: usize, at: &str, msg: impl std::fmt::Display) -> TemplateError {
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

    pub(super) fn walk_list(&mut self, nodes: &[Node], dot: &GoValue, tpl_name: &str) -> Result<Flow, TemplateError> {
        for node in nodes {
            match self.walk(node, dot, tpl_name)? {
                Flow::Normal => {}
                flow => return Ok(flow),
            }
        }
        Ok(Flow::Normal)
    }

    /// Appends to the output, within [`MAX_STRING_BYTES`].
    fn emit(&mut self, text: &str, tpl_name: &str) -> Result<(), TemplateError> {
        if self.out.len() + text.len() > MAX_STRING_BYTES {
            return Err(TemplateError {
                message: format!(
                    "template: {}: executing \"{tpl_name}\": {}",
                    self.tpl.name,
                    limits::string_too_long("the output")
                ),
            });
        }
        self.out.push_str(text);
        Ok(())
    }

    /// Counts one `range` iteration against [`MAX_RANGE_ITERATIONS`].
    fn count_iteration(&mut self, tpl_name: &str, pipe: &Pipeline) -> Result<(), TemplateError> {
        self.iterations += 1;
        if self.iterations > MAX_RANGE_ITERATIONS {
            let msg =
                format!("range: more than {MAX_RANGE_ITERATIONS} iterations in one execution (kubectl-capz's limit)");
            return Err(self.exec_err(tpl_name, pipe.pos, &pipe.text, msg));
        }
        Ok(())
    }

    pub(super) fn walk(&mut self, node: &Node, dot: &GoValue, tpl_name: &str) -> Result<Flow, TemplateError> {
        match node {
            Node::Text(t) => self.emit(t, tpl_name)?,
            Node::Action(pipe) => {
                let value = self.eval_pipeline(pipe, dot, tpl_name)?;
                if pipe.decl.is_empty() {
                    let text = value.print_top().map_err(|msg| self.exec_err(tpl_name, pipe.pos, &pipe.text, msg))?;
                    self.emit(&text, tpl_name)?;
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
            Node::Range(pipe, body, els) => return self.walk_range(pipe, body, els, dot, tpl_name),
            Node::Template(name, pipe, pos) => self.walk_template(name, pipe.as_ref(), *pos, dot, tpl_name)?,
            Node::Break => return Ok(Flow::Break),
            Node::Continue => return Ok(Flow::Continue),
        }
        Ok(Flow::Normal)
    }

    /// `{{range}}`: the body once per item of a list or map (keys in order) or per integer below `n`, with the
    /// declared variables set; the else branch when there is none.
    fn walk_range(
        &mut self,
        pipe: &Pipeline,
        body: &[Node],
        els: &[Node],
        dot: &GoValue,
        tpl_name: &str,
    ) -> Result<Flow, TemplateError> {
        let mark = self.vars.len();
        let value = self.eval_pipeline_value(pipe, dot, tpl_name)?;
        let count = match &value {
            GoValue::List(list) => list.len() as i64,
            GoValue::Map(map) => map.len() as i64,
            GoValue::Int(n) => (*n).max(0),
            GoValue::Missing | GoValue::Nil => 0,
            other => {
                return Err(self.exec_err(
                    tpl_name,
                    pipe.pos,
                    &pipe.text,
                    format!("range can't iterate over {}", other.sprint()),
                ));
            }
        };
        if count == 0 {
            let flow = self.walk_list(els, dot, tpl_name)?;
            self.vars.truncate(mark);
            return Ok(flow);
        }
        let entries = match &value {
            GoValue::Map(map) => map.entries(),
            _ => Vec::new(),
        };
        for i in 0..count {
            self.count_iteration(tpl_name, pipe)?;
            let (key, elem) = match &value {
                GoValue::List(list) => (GoValue::Int(i), list[i as usize].clone()),
                GoValue::Map(_) => {
                    let (k, v) = &entries[i as usize];
                    (GoValue::Str(k.clone()), v.clone())
                }
                _ => (GoValue::Int(i), GoValue::Int(i)),
            };
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
        Ok(Flow::Normal)
    }

    /// `{{template "name" pipeline}}`: the defined template with the pipeline's value as dot and `$`, in a
    /// scope of its own.
    fn walk_template(
        &mut self,
        name: &str,
        pipe: Option<&Pipeline>,
        pos: usize,
        dot: &GoValue,
        tpl_name: &str,
    ) -> Result<(), TemplateError> {
        let Some(body) = self.tpl.defines.get(name) else {
            return Err(self.exec_err(
                tpl_name,
                pos,
                &format!("template \"{name}\""),
                format!("template \"{name}\" not defined"),
            ));
        };
        let new_dot = match pipe {
            Some(p) => self.eval_pipeline(p, dot, tpl_name)?,
            None => GoValue::Nil,
        };
        if self.depth >= MAX_TEMPLATE_CALLS {
            let msg =
                format!("exceeded maximum template depth ({MAX_TEMPLATE_CALLS}, kubectl-capz's limit; Go's is 100000)");
            return Err(self.exec_err(tpl_name, pos, &format!("template \"{name}\""), msg));
        }
        self.depth += 1;
        let saved = std::mem::replace(&mut self.vars, vec![("$".to_string(), new_dot.clone())]);
        self.walk_list(body, &new_dot, name)?;
        self.vars = saved;
        self.depth -= 1;
        Ok(())
    }

    pub(super) fn set_var(&mut self, name: &str, value: GoValue, assign: bool) {
        if assign && let Some(slot) = self.vars.iter_mut().rev().find(|(n, _)| n == name) {
            slot.1 = value;
            return;
        }
        self.vars.push((name.to_string(), value));
    }

    pub(super) fn var(&self, name: &str) -> GoValue {
        self.vars.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v.clone()).unwrap_or(GoValue::Missing)
    }

    /// Evaluates a pipeline and binds its declared variables (if/with/action semantics).
    pub(super) fn eval_pipeline(
        &mut self,
        pipe: &Pipeline,
        dot: &GoValue,
        tpl_name: &str,
    ) -> Result<GoValue, TemplateError> {
        let value = self.eval_pipeline_value(pipe, dot, tpl_name)?;
        if let Some(name) = pipe.decl.first() {
            self.set_var(name, value.clone(), pipe.assign);
        }
        Ok(value)
    }

    pub(super) fn eval_pipeline_value(
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

    pub(super) fn eval_command(
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

    pub(super) fn eval_arg(
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
    pub(super) fn field_chain(
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
                GoValue::Map(map) => match map.get(field) {
                    Some(found) => found,
                    None if self.tpl.options.missing_key_error => {
                        let msg = format!("map has no entry for key {}", go_quote(field));
                        return Err(self.exec_err(tpl_name, field_pos, &at, msg));
                    }
                    None => GoValue::Missing,
                },
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

pub(super) fn operand_text(op: &Operand) -> String {
    match op {
        Operand::Str(s) => format!("{s:?}"),
        Operand::Number(n) => n.sprint(),
        Operand::Bool(b) => b.to_string(),
        Operand::Dot => ".".into(),
        _ => "value".into(),
    }
}

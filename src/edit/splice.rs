//! The splicing toolkit of gk's settings editors: strict parsing into a
//! syntax tree, byte ranges of its parts, edits applied at those ranges
//! (every other byte kept), and new JSON rendered in the file's own
//! indentation. What to change is decided by the editors around it
//! ([`super::settings_edit`], [`super::settings_keys`], [`super::switch`]).

use std::path::Path;

use jsonc_parser::ast::{Array, Object, Value};

use crate::error::{Error, Result};
use crate::settings::{self, line_col};

pub(crate) fn split_bom(text: &str) -> (&str, &str) {
    match text.strip_prefix('\u{feff}') {
        Some(rest) => ("\u{feff}", rest),
        None => ("", text),
    }
}

pub(crate) fn parse_strict<'a>(path: &Path, body: &'a str) -> Result<Object<'a>> {
    let result = jsonc_parser::parse_to_ast(
        body,
        &jsonc_parser::CollectOptions::default(),
        &settings::strict_options(),
    )
    .map_err(|e| {
        Error::new(format!(
            "{}:{}:{}: not valid JSON: {}",
            path.display(),
            e.line_display(),
            e.column_display(),
            e.kind()
        ))
    })?;
    match result.value {
        Some(Value::Object(obj)) => Ok(obj),
        _ => Err(Error::new(format!(
            "{}:1:1: the top level must be a JSON object",
            path.display()
        ))),
    }
}

/// `path:line:column: reason` for byte `offset` of `body`, worded like the
/// shared read model's parse errors.
pub(crate) fn at(path: &Path, body: &str, offset: usize, reason: &str) -> Error {
    let (line, column) = line_col(body, offset);
    let err = settings::ParseError {
        path: path.to_path_buf(),
        line,
        column,
        reason: reason.to_string(),
        not_utf8: false,
    };
    Error::new(err.to_string())
}

pub(crate) fn value_start(v: &Value) -> usize {
    value_range(v).0
}

pub(crate) fn value_range(v: &Value) -> (usize, usize) {
    let r = match v {
        Value::StringLit(x) => x.range,
        Value::NumberLit(x) => x.range,
        Value::BooleanLit(x) => x.range,
        Value::Object(x) => x.range,
        Value::Array(x) => x.range,
        Value::NullKeyword(x) => x.range,
    };
    (r.start, r.end)
}

/// A replacement of `body[start..end]` by `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edit {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) text: String,
}

pub(crate) fn apply_edits(body: &str, mut edits: Vec<Edit>) -> String {
    edits.sort_by_key(|e| std::cmp::Reverse(e.start));
    // Edits never overlap by construction; if one ever did, it is skipped
    // and the result check refuses the outcome instead of panicking. The
    // kept edits are then written out front to back in one pass.
    let mut kept = Vec::with_capacity(edits.len());
    let mut limit = usize::MAX;
    for e in edits {
        if e.end > limit || e.start > e.end || e.end > body.len() {
            continue;
        }
        limit = e.start;
        kept.push(e);
    }
    let mut out =
        String::with_capacity(body.len() + kept.iter().map(|e| e.text.len()).sum::<usize>());
    let mut at = 0;
    for e in kept.iter().rev() {
        out.push_str(&body[at..e.start]);
        out.push_str(&e.text);
        at = e.end;
    }
    out.push_str(&body[at..]);
    out
}

/// Cut the items marked in `remove` out of a container (`{…}` or `[…]`
/// spanning `container`, items spanning `items`). The inverse of
/// [`insert_edit`]: a removed last item takes the separator before it with
/// it, any other removed item the separator after it; removing every item
/// leaves `{}` / `[]` with `inside` between the brackets.
pub(crate) fn cut_items(
    container: (usize, usize),
    items: &[(usize, usize)],
    remove: &[bool],
    inside: &str,
) -> Vec<Edit> {
    let n = items.len();
    if n == 0 || !remove.iter().any(|r| *r) {
        return Vec::new();
    }
    if remove.iter().all(|r| *r) {
        return vec![Edit {
            start: container.0 + 1,
            end: container.1 - 1,
            text: inside.to_string(),
        }];
    }
    let mut edits = Vec::new();
    // The trailing run of removed items goes with the separator before it.
    let mut tail_start = n;
    while tail_start > 0 && remove[tail_start - 1] {
        tail_start -= 1;
    }
    if tail_start < n {
        edits.push(Edit {
            start: items[tail_start - 1].1,
            end: items[n - 1].1,
            text: String::new(),
        });
    }
    for i in 0..tail_start {
        if remove[i] {
            edits.push(Edit {
                start: items[i].0,
                end: items[i + 1].0,
                text: String::new(),
            });
        }
    }
    edits
}

pub(crate) fn prop_range(p: &jsonc_parser::ast::ObjectProp) -> (usize, usize) {
    (p.range.start, p.range.end)
}

pub(crate) fn range_of_obj(o: &Object) -> (usize, usize) {
    (o.range.start, o.range.end)
}

pub(crate) fn range_of_arr(a: &Array) -> (usize, usize) {
    (a.range.start, a.range.end)
}

/// A JSON value to insert, with key order as written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum J {
    Str(String),
    /// JSON text written as is (`true`, `false`).
    Raw(String),
    Int(i64),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

/// How the file is written, so inserted text looks like the rest of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Style {
    newline: &'static str,
    unit: String,
    /// One-line file: insert without newlines, with these separators.
    compact: bool,
    colon: &'static str,
    comma: &'static str,
}

impl Style {
    pub(crate) fn fresh() -> Style {
        Style {
            newline: "\n",
            unit: "  ".into(),
            compact: false,
            colon: ": ",
            comma: ",",
        }
    }

    /// The style of one container written on one line (`text`, holding
    /// `items` items): its separators as written; with one item there is
    /// no separator to copy, and `", "` is the common spelling.
    fn one_line(text: &str, items: usize) -> Style {
        Style {
            newline: "\n",
            unit: String::new(),
            compact: true,
            colon: if text.contains("\":") && !text.contains("\": ") {
                ":"
            } else {
                ": "
            },
            comma: if items > 1 && !text.contains(", ") {
                ","
            } else {
                ", "
            },
        }
    }

    pub(crate) fn detect(body: &str, root: &Object) -> Style {
        let newline = if body.contains("\r\n") { "\r\n" } else { "\n" };
        let root_text = &body[root.range.start..root.range.end];
        // A one-line file with content stays one line; `{}` is given the usual layout.
        let compact = !root_text.contains('\n') && !root.properties.is_empty();
        let unit = root
            .properties
            .first()
            .and_then(|p| line_indent_if_first(body, p.range.start))
            .filter(|u| !u.is_empty())
            .unwrap_or_else(|| "  ".to_string());
        let (colon, comma) = if compact {
            (
                if root_text.contains("\": ") {
                    ": "
                } else {
                    ":"
                },
                if root_text.contains(", ") { ", " } else { "," },
            )
        } else {
            (": ", ",")
        };
        Style {
            newline,
            unit,
            compact,
            colon,
            comma,
        }
    }
}

/// The whitespace before `offset` on its line, if only whitespace precedes it.
fn line_indent_if_first(body: &str, offset: usize) -> Option<String> {
    let line_start = body[..offset].rfind('\n').map_or(0, |i| i + 1);
    let prefix = &body[line_start..offset];
    prefix
        .chars()
        .all(|c| c == ' ' || c == '\t')
        .then(|| prefix.to_string())
}

/// The leading whitespace of the line holding `offset`.
fn line_indent(body: &str, offset: usize) -> String {
    let line_start = body[..offset].rfind('\n').map_or(0, |i| i + 1);
    body[line_start..offset]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

pub(crate) fn render(v: &J, indent: &str, style: &Style) -> String {
    match v {
        J::Str(s) => serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into()),
        J::Int(n) => n.to_string(),
        J::Raw(r) => r.clone(),
        J::Arr(items) if style.compact => {
            let parts: Vec<String> = items.iter().map(|i| render(i, indent, style)).collect();
            format!("[{}]", parts.join(style.comma))
        }
        J::Obj(props) if style.compact => {
            let parts: Vec<String> = props
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{}{}{}",
                        render(&J::Str(k.clone()), indent, style),
                        style.colon,
                        render(v, indent, style)
                    )
                })
                .collect();
            format!("{{{}}}", parts.join(style.comma))
        }
        J::Arr(items) => {
            let inner = format!("{indent}{}", style.unit);
            let parts: Vec<String> = items
                .iter()
                .map(|i| format!("{inner}{}", render(i, &inner, style)))
                .collect();
            format!(
                "[{nl}{}{nl}{indent}]",
                parts.join(&format!(",{}", style.newline)),
                nl = style.newline
            )
        }
        J::Obj(props) => {
            let inner = format!("{indent}{}", style.unit);
            let parts: Vec<String> = props
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{inner}{}: {}",
                        render(&J::Str(k.clone()), &inner, style),
                        render(v, &inner, style)
                    )
                })
                .collect();
            format!(
                "{{{nl}{}{nl}{indent}}}",
                parts.join(&format!(",{}", style.newline)),
                nl = style.newline
            )
        }
    }
}

/// Text of one new item: a property (`Some(name)`) or an array element.
fn render_item(name: Option<&str>, v: &J, indent: &str, style: &Style) -> String {
    let value = render(v, indent, style);
    match name {
        Some(n) => format!(
            "{}{}{value}",
            render(&J::Str(n.to_string()), indent, style),
            if style.compact { style.colon } else { ": " }
        ),
        None => value,
    }
}

/// Insert `new` items into the container spanning `container` (existing
/// items span `items`) before item `index` (`items.len()`: at the end).
/// Inserting before an existing item adds whole lines and touches none, so
/// the diff is pure insertion. The inverse of [`cut_items`].
pub(crate) fn insert_edit(
    body: &str,
    container: (usize, usize),
    items: &[(usize, usize)],
    index: usize,
    new: &[(Option<String>, J)],
    style: &Style,
) -> Edit {
    // A container written on one line, in a file of many, stays one line
    // in its own spacing: a person writes `["a", "b"]` or an entry a line,
    // never both in one list. (An empty one is opened up, as `{}` is.)
    let own_text = &body[container.0..container.1];
    if !style.compact && !items.is_empty() && !own_text.contains('\n') {
        let one_line = Style::one_line(own_text, items.len());
        return insert_edit(body, container, items, index, new, &one_line);
    }
    let container_indent = line_indent(body, container.0);
    let at_end = index >= items.len();
    if style.compact {
        let parts: Vec<String> = new
            .iter()
            .map(|(n, v)| render_item(n.as_deref(), v, "", style))
            .collect();
        let joined = parts.join(style.comma);
        return match (items.last(), at_end) {
            (None, _) => Edit {
                start: container.0 + 1,
                end: container.1 - 1,
                text: joined,
            },
            (Some(last), true) => Edit {
                start: last.1,
                end: last.1,
                text: format!("{}{joined}", style.comma),
            },
            (Some(_), false) => Edit {
                start: items[index].0,
                end: items[index].0,
                text: format!("{joined}{}", style.comma),
            },
        };
    }
    let child_indent = items
        .first()
        .and_then(|first| line_indent_if_first(body, first.0))
        .unwrap_or_else(|| format!("{container_indent}{}", style.unit));
    let rendered: Vec<String> = new
        .iter()
        .map(|(n, v)| render_item(n.as_deref(), v, &child_indent, style))
        .collect();
    let nl = style.newline;
    let sep = format!(",{nl}{child_indent}");
    match (items.last(), at_end) {
        (None, _) => Edit {
            start: container.0 + 1,
            end: container.1 - 1,
            text: format!(
                "{nl}{child_indent}{}{nl}{container_indent}",
                rendered.join(&sep)
            ),
        },
        (Some(last), true) => Edit {
            start: last.1,
            end: last.1,
            text: format!("{sep}{}", rendered.join(&sep)),
        },
        (Some(_), false) => Edit {
            start: items[index].0,
            end: items[index].0,
            text: format!("{}{sep}", rendered.join(&sep)),
        },
    }
}

/// `body` with property `name: value` appended to `obj` (any object in it),
/// in the file's style.
pub(crate) fn append_property(body: &str, obj: &Object, name: &str, value: &J) -> String {
    let root_style = match jsonc_parser::parse_to_ast(
        body,
        &jsonc_parser::CollectOptions::default(),
        &settings::strict_options(),
    ) {
        Ok(jsonc_parser::ParseResult {
            value: Some(Value::Object(root)),
            ..
        }) => Style::detect(body, &root),
        _ => Style::fresh(),
    };
    let props: Vec<(usize, usize)> = obj.properties.iter().map(prop_range).collect();
    let edit = insert_edit(
        body,
        range_of_obj(obj),
        &props,
        props.len(),
        &[(Some(name.to_string()), value.clone())],
        &root_style,
    );
    apply_edits(body, vec![edit])
}

//! The model and effort of the session's last reply, read from the tail of
//! the session's transcript (`transcript_path` in the prompt hook's event;
//! the UserPromptSubmit event itself carries neither). Each assistant line
//! of a transcript holds `"message": {"model": …}` and, once an effort is
//! set, `"effort"` (docs/maintainers/claude-code-facts.md).
//!
//! Bounded like everything on the hot path: the file is opened through
//! [`crate::bounded::open_no_link`] (no FIFO, device, folder or link is
//! ever read), only its last [`TAIL_BYTES`] are read, and of those only the
//! lines that name an assistant reply (or a `/model` or `/effort` command)
//! are parsed, each once: linear in the tail, whatever the file's size. A
//! missing, odd, oversized-line or hostile transcript means "unknown".
//! Nothing is written and no process is started. The files themselves
//! (a FIFO, a device, a link, 50 MB) are tested in tests/it/adversarial.rs.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use serde_json::Value;

/// How much of a transcript's end is read.
pub const TAIL_BYTES: u64 = 64 << 10;

/// The longest transcript path followed (a longer one is not a path the
/// client writes).
const MAX_PATH_BYTES: usize = 4096;

/// The longest model id or effort kept; anything longer is unknown.
const MAX_NAME_BYTES: usize = 100;

/// What the last reply ran on; `None`: unknown.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Current {
    pub model: Option<String>,
    pub effort: Option<String>,
}

/// The current model and effort for a prompt event (unknown without a
/// usable `transcript_path`).
pub fn of_event(event: &Value) -> Current {
    match event.get("transcript_path") {
        Some(Value::String(p)) if !p.is_empty() && p.len() <= MAX_PATH_BYTES => read(Path::new(p)),
        _ => Current::default(),
    }
}

/// The current model and effort from the transcript at `path`.
pub fn read(path: &Path) -> Current {
    let Ok((mut file, meta)) = crate::bounded::open_no_link(path) else {
        return Current::default();
    };
    let start = meta.len().saturating_sub(TAIL_BYTES);
    if file.seek(SeekFrom::Start(start)).is_err() {
        return Current::default();
    }
    let mut tail = Vec::with_capacity(TAIL_BYTES.min(meta.len()) as usize);
    if file.take(TAIL_BYTES).read_to_end(&mut tail).is_err() {
        return Current::default();
    }
    last_reply(&tail, start == 0)
}

/// The model and effort of the last assistant line in `tail` (the end of a
/// transcript; `whole`: it starts at the file's start, so its first line is
/// complete). A `/model` (or `/effort`) command after that line means the
/// model (or effort) is no longer known.
pub fn last_reply(tail: &[u8], whole: bool) -> Current {
    let body = if whole {
        tail
    } else {
        match memchr::memchr(b'\n', tail) {
            Some(i) => &tail[i + 1..],
            None => return Current::default(),
        }
    };
    let (mut model_changed, mut effort_changed) = (false, false);
    for line in body.rsplit(|b| *b == b'\n') {
        let assistant = memchr::memmem::find(line, b"\"assistant\"").is_some();
        let model_cmd = memchr::memmem::find(line, b"<command-name>/model<").is_some();
        let effort_cmd = memchr::memmem::find(line, b"<command-name>/effort<").is_some();
        if !assistant && !model_cmd && !effort_cmd {
            continue;
        }
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        match v.get("type").and_then(Value::as_str) {
            Some("user") => {
                model_changed |= model_cmd;
                effort_changed |= effort_cmd;
            }
            Some("assistant") if v.get("isSidechain") != Some(&Value::Bool(true)) => {
                let model = v
                    .get("message")
                    .and_then(|m| m.get("model"))
                    .and_then(Value::as_str);
                // `--resume` adds a line that is no reply.
                let Some(model) = model.filter(|m| *m != "<synthetic>") else {
                    continue;
                };
                let effort = match v.get("effort") {
                    Some(Value::String(e)) => Some(e.as_str()),
                    Some(Value::Object(o)) => o.get("level").and_then(Value::as_str),
                    _ => None,
                };
                return Current {
                    model: (!model_changed).then(|| name(model)).flatten(),
                    effort: (!effort_changed).then(|| effort.and_then(name)).flatten(),
                };
            }
            _ => {}
        }
        if model_changed && effort_changed {
            break;
        }
    }
    Current::default()
}

/// A model id or effort as gk keeps it: short, and only the characters ids
/// are made of; anything else is unknown.
fn name(s: &str) -> Option<String> {
    let ok = |c: char| c.is_ascii_alphanumeric() || "-_.[]:@/".contains(c);
    (!s.is_empty() && s.len() <= MAX_NAME_BYTES && s.chars().all(ok)).then(|| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(model: &str, effort: Option<&str>) -> String {
        let mut v = serde_json::json!({
            "type": "assistant", "isSidechain": false,
            "message": {"model": model, "role": "assistant", "content": [{"type": "text", "text": "Done."}]},
        });
        if let Some(e) = effort {
            v["effort"] = e.into();
        }
        v.to_string()
    }

    fn current(model: &str, effort: Option<&str>) -> Current {
        Current {
            model: Some(model.into()),
            effort: effort.map(str::to_string),
        }
    }

    #[test]
    fn the_last_reply_gives_the_model_and_effort() {
        let text = [
            reply("claude-sonnet-5", None),
            r#"{"type":"user","message":{"role":"user","content":"go on"}}"#.into(),
            reply("claude-opus-5-5", Some("high")),
            r#"{"type":"attachment","attachment":{"type":"hook_success","hookEvent":"Stop"}}"#
                .into(),
            r#"{"type":"system","subtype":"stop_hook_summary"}"#.into(),
            String::new(),
        ]
        .join("\n");
        assert_eq!(
            last_reply(text.as_bytes(), true),
            current("claude-opus-5-5", Some("high"))
        );
    }

    #[test]
    fn a_subagent_a_resume_line_and_a_later_switch_do_not_count() {
        let sidechain = reply("claude-haiku-4-5", None)
            .replace("\"isSidechain\":false", "\"isSidechain\":true");
        let text = [
            reply("claude-opus-5-5", Some("medium")),
            sidechain,
            reply("<synthetic>", None),
        ]
        .join("\n");
        assert_eq!(
            last_reply(text.as_bytes(), true),
            current("claude-opus-5-5", Some("medium"))
        );
        let switched = format!(
            "{}\n{}\n",
            reply("claude-opus-5-5", Some("medium")),
            r#"{"type":"user","message":{"role":"user","content":"<command-name>/model</command-name>\n<command-args>sonnet</command-args>"}}"#
        );
        assert_eq!(
            last_reply(switched.as_bytes(), true),
            Current {
                model: None,
                effort: Some("medium".into())
            }
        );
        let effort = switched.replace("/model<", "/effort<");
        assert_eq!(
            last_reply(effort.as_bytes(), true),
            current("claude-opus-5-5", None)
        );
    }

    #[test]
    fn a_cut_first_line_is_never_read() {
        // The tail starts inside a reply line: that line is not whole.
        let line = reply("claude-opus-5-5", None);
        let cut = &line[10..];
        assert_eq!(last_reply(cut.as_bytes(), false), Current::default());
        let two = format!("{cut}\n{}", reply("claude-sonnet-5", None));
        assert_eq!(
            last_reply(two.as_bytes(), false),
            current("claude-sonnet-5", None)
        );
    }

    #[test]
    fn hostile_text_is_unknown() {
        let escape = reply("claude-opus\u{1b}[2J", Some("high\nSTATE"));
        let long = reply(&"o".repeat(200), None);
        let nested = format!(
            "{{\"type\":\"assistant\",\"x\":{}1{}}}",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        for text in [
            escape.as_str(),
            long.as_str(),
            nested.as_str(),
            "\u{0}\u{ff}\"assistant\"\u{fe}",
            "{\"type\":\"assistant\",\"message\":{\"model\":5}}",
            "{\"type\":\"assistant\",\"message\":\"claude-opus\"}",
            "",
        ] {
            let got = last_reply(text.as_bytes(), true);
            assert_eq!(got.model, None, "{text:.80}");
        }
        // Invalid UTF-8 bytes on a line of their own do not hide the reply.
        let mut bytes = reply("claude-opus-5-5", None).into_bytes();
        bytes.extend_from_slice(b"\n\xff\xfe\"assistant\"\n");
        assert_eq!(last_reply(&bytes, true), current("claude-opus-5-5", None));
    }
}

//! At the switch itself: `gk hook pre-model-switch` (PreModelSwitch) and
//! `gk hook post-model-switch` (PostModelSwitch).
//!
//! Before a switch the client asks whether it may go on; gk knows the one
//! thing the client does not: whether the task in flight is done. The task
//! is the one the prompt hook names ([`super::follow::speaking`]); the
//! words are the composer's ([`super::voice::switch_reason`],
//! [`super::voice::switch_context`]).
//!
//! - Clean (no task, done, unreadable): no answer at all, so the client's
//!   own confirm stays as it is.
//! - A task in progress or stale, `"switch": "ask"` (the default) and a
//!   switch the user made (`source` `command` or `picker`): `ask`, with
//!   the reason. A headless switch (`sdk`, or any source gk does not know)
//!   is never asked: a headless session takes `ask` as a refusal.
//! - `"block"`: `deny`, with the reason, whatever the source.
//! - `"warn"`: no decision; after the switch the reason is shown with the
//!   next prompt.
//! - `"off"`: both hooks print nothing.
//!
//! After the switch, with a task in progress, Claude gets one line: the
//! model changed mid-task, re-read the record first.
//!
//! Everything read from the event is data: model names pass
//! [`crate::text::one_line`] with a bound, numbers count only when finite
//! and in range, and a missing or odd field means "not known".

use std::time::SystemTime;

use serde_json::Value;

use super::config::{Config, SwitchMode};
use super::follow;
use super::jsonout::push_json_str;
use super::state::Located;
use super::voice::{self, SwitchCost, Task};

/// The longest model name shown (the client's ids are about 20 characters).
const MAX_MODEL: usize = 48;
/// Below this estimate (US dollars) the cost of re-caching is not worth a
/// line: a short conversation costs cents to read again.
pub const COST_THRESHOLD_USD: f64 = 0.05;
/// Above this an estimate is taken as nonsense and not shown.
const MAX_COST_USD: f64 = 10_000.0;
/// Above this a token count is taken as nonsense (no context is this long).
const MAX_TOKENS: f64 = 100_000_000.0;

/// Who asked for the switch, as `source` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// `command` (`/model`) or `picker`: a person at the TUI, who can answer.
    Interactive,
    /// `sdk`, `auto`, `resume`, absent or unknown: nobody to ask.
    Headless,
}

/// What gk reads of a switch event.
#[derive(Debug, Clone, PartialEq)]
pub struct Switch {
    pub from: Option<String>,
    pub to: Option<String>,
    pub source: Source,
    pub cost: Option<SwitchCost>,
}

/// The switch the event describes, every field checked.
pub fn read(event: &Value) -> Switch {
    let model = |name: &str| {
        event
            .get(name)
            .and_then(Value::as_str)
            .map(|m| crate::text::one_line(m.trim(), MAX_MODEL).into_owned())
            .filter(|m| !m.trim().is_empty())
    };
    let source = match event.get("source").and_then(Value::as_str) {
        Some("command" | "picker") => Source::Interactive,
        _ => Source::Headless,
    };
    let to = model("to_model");
    let cost = (event.get("prompt_cache_warm") == Some(&Value::Bool(true)))
        .then(|| {
            let usd = event
                .get("estimated_cache_write_usd")
                .and_then(Value::as_f64)
                .filter(|u| u.is_finite() && (COST_THRESHOLD_USD..=MAX_COST_USD).contains(u))?;
            let tokens = event
                .get("context_tokens")
                .and_then(Value::as_f64)
                .filter(|t| t.is_finite() && (1.0..=MAX_TOKENS).contains(t))
                .map(|t| t as u64);
            Some(SwitchCost { usd, tokens })
        })
        .flatten();
    Switch {
        from: model("from_model"),
        to,
        source,
        cost,
    }
}

/// What the hook prints for `event` (`pre`: PreModelSwitch, else
/// PostModelSwitch); `None`: nothing.
pub fn answer(
    pre: bool,
    event: &Value,
    config: &Config,
    located: &Located,
    now: SystemTime,
) -> Option<String> {
    let (file, earlier) = follow::speaking(located, now, config.stale_hours);
    let task = follow::task_of(file, earlier.is_some(), now, config.stale_hours);
    if task == Task::Clear {
        return None;
    }
    let switch = read(event);
    if pre {
        let decision = match (config.switch, switch.source) {
            (SwitchMode::Block, _) => "deny",
            (SwitchMode::Ask, Source::Interactive) => "ask",
            _ => return None,
        };
        let reason = voice::switch_reason(&task, switch.to.as_deref(), switch.cost.as_ref());
        return Some(decision_output(decision, &reason));
    }
    let record = earlier
        .map(|e| e.record.as_path())
        .or(located.record.as_deref());
    let context =
        voice::switch_context(&task, switch.from.as_deref(), switch.to.as_deref(), record);
    let message = (config.switch == SwitchMode::Warn)
        .then(|| voice::switch_reason(&task, switch.to.as_deref(), switch.cost.as_ref()));
    Some(post_output(message.as_deref(), &context))
}

/// The PreModelSwitch answer, newline-terminated.
fn decision_output(decision: &str, reason: &str) -> String {
    let mut out = String::from(
        "{\"hookSpecificOutput\": {\"hookEventName\": \"PreModelSwitch\", \"permissionDecision\": ",
    );
    push_json_str(&mut out, decision);
    out.push_str(", \"permissionDecisionReason\": ");
    push_json_str(&mut out, reason);
    out.push_str("}}\n");
    out
}

/// The PostModelSwitch answer: context for Claude and, when given, a
/// message for the user; newline-terminated.
fn post_output(message: Option<&str>, context: &str) -> String {
    let mut out = String::from("{");
    if let Some(m) = message {
        out.push_str("\"systemMessage\": ");
        push_json_str(&mut out, m);
        out.push_str(", ");
    }
    out.push_str(
        "\"hookSpecificOutput\": {\"hookEventName\": \"PostModelSwitch\", \"additionalContext\": ",
    );
    push_json_str(&mut out, context);
    out.push_str("}}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_a_person_at_the_tui_is_interactive() {
        for (source, want) in [
            (json!("command"), Source::Interactive),
            (json!("picker"), Source::Interactive),
            (json!("sdk"), Source::Headless),
            (json!("auto"), Source::Headless),
            (json!("resume"), Source::Headless),
            (json!("COMMAND"), Source::Headless),
            (json!(7), Source::Headless),
            (json!(null), Source::Headless),
        ] {
            assert_eq!(read(&json!({ "source": source })).source, want, "{source}");
        }
        assert_eq!(read(&json!({})).source, Source::Headless);
    }

    #[test]
    fn the_cost_counts_only_when_warm_finite_in_range_and_above_the_threshold() {
        let cost = |warm: Value, usd: Value, tokens: Value| {
            read(
                &json!({"prompt_cache_warm": warm, "estimated_cache_write_usd": usd,
                         "context_tokens": tokens}),
            )
            .cost
        };
        assert_eq!(
            cost(json!(true), json!(0.42), json!(180_000)),
            Some(SwitchCost {
                usd: 0.42,
                tokens: Some(180_000)
            })
        );
        assert_eq!(cost(json!(false), json!(0.42), json!(180_000)), None);
        assert_eq!(cost(json!("true"), json!(0.42), json!(180_000)), None);
        assert_eq!(cost(json!(true), json!(0.01), json!(180_000)), None);
        assert_eq!(cost(json!(true), json!(-3), json!(180_000)), None);
        assert_eq!(cost(json!(true), json!(1e300), json!(180_000)), None);
        assert_eq!(cost(json!(true), json!("0.42"), json!(180_000)), None);
        assert_eq!(
            cost(json!(true), json!(0.42), json!(-5)),
            Some(SwitchCost {
                usd: 0.42,
                tokens: None
            })
        );
        assert_eq!(
            cost(json!(true), json!(0.42), json!(1e30)),
            Some(SwitchCost {
                usd: 0.42,
                tokens: None
            })
        );
    }

    #[test]
    fn model_names_are_one_bounded_line_without_control_characters() {
        let s = read(
            &json!({"to_model": "claude-\u{1b}[31msonnet\nx", "from_model": "a".repeat(10_000)}),
        );
        let to = s.to.unwrap();
        assert!(crate::text::is_clean(&to), "{to:?}");
        assert!(!to.contains('\n'));
        assert!(s.from.unwrap().chars().count() <= MAX_MODEL);
        assert_eq!(read(&json!({"to_model": "  "})).to, None);
        assert_eq!(read(&json!({"to_model": 5})).to, None);
    }
}

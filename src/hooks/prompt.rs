//! `gk hook prompt` (UserPromptSubmit): the v5 gatekeeper. Recommends a
//! model and an effort from keywords in the prompt, reminds the user not to
//! switch while a task is in progress, handles the `[check]` prefix, and
//! gives Claude the state and the instruction to keep it (v5 calls that
//! instruction "Option D").
//!
//! In global scope the words are v5's, byte for byte. Per session they are
//! plain: the model line shows a `/model` argument the client takes as
//! typed (the model id, or the rule's `command`) with the label beside it,
//! says which keyword matched or that none did, and the instruction goes
//! under `[Task state]`; by default the model lines show only when a
//! keyword matched (`show_model`).

use std::time::SystemTime;

use serde_json::Value;

use super::config::Config;
use super::keywords;
use super::pytext::{strip_check_prefix, word_count};
use super::state::{StateFile, StateRead, DETAIL_CHARS, PROJECT_CHARS, STATUS_CHARS, TASK_CHARS};

const CHECK_HEADER: &str = " -- CHECK MODE: assessment only, nothing will be executed";

const CHECK_MODE_INSTRUCTION: &str =
    "CHECK MODE. The user prefixed this prompt with [check]. Do NOT execute the \
request, do NOT call any tools, do NOT start the task, and do NOT write \
task_state.json. Instead reply with a short assessment, under 120 words: \
(1) one line restating what the request would involve; \
(2) size and depth: trivial / medium / complex / long-horizon; \
(3) recommended model (";

/// Follows the list of models in the check-mode instruction.
const CHECK_MODE_AFTER_MODELS: &str = ") and effort \
(low / medium / high), with a one-sentence reason; \
(4) whether the current task state allows switching. \
End with exactly: 'Switch with /model if needed, then type go.' \
The keyword heuristic guessed ";

/// The v5 rules' labels, and how the v5 text lists them (cheapest first).
const V5_LABELS: [&str; 4] = ["Haiku 4.5", "Sonnet 5", "Opus 5.5", "Fable 5.1"];
const V5_MODEL_LIST: &str = "Haiku 4.5, Sonnet 5, Opus 5.5 or Fable 5.1";

const CHECK_MODE_TAIL: &str = "; override it if your reading differs.";

const OPTION_D_CLEAN: &str = " [Option D] Before ending this turn: if you START substantial work \
(code, TTL, SPARQL, multi-section docs, a build phase), write \
task_state.json with status in_progress. Do NOT write it for \
trivial Q&A.";

const OPTION_D_DIRTY: &str = " [Option D] Before ending this turn: if the in-progress task is now \
COMPLETE or handed off to the user, write task_state.json with status \
clean. If it is still mid-flight, leave it. If you have moved on to a \
different substantial task, overwrite it with the new task.";

/// The prompt text the reference would read from the event: `user_prompt`
/// when it is truthy, else `prompt`. Where the reference would crash (a
/// non-string value), gk takes `prompt` if it is a string, else `""`.
pub fn prompt_of(event: &Value) -> &str {
    let Value::Object(map) = event else {
        return "";
    };
    if let Some(Value::String(s)) = map.get("user_prompt") {
        if !s.is_empty() {
            return s;
        }
    }
    match map.get("prompt") {
        Some(Value::String(s)) => s,
        _ => "",
    }
}

/// The model the keywords point to, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelChoice<'c> {
    pub label: &'c str,
    pub model: &'c str,
    /// What to type after `/model`: the rule's `command`, else its model id.
    pub command: &'c str,
    pub purpose: &'c str,
    /// The keyword that fired, or `"default"`.
    pub trigger: &'c str,
    /// Index into `Config::models`; `None` for the default model.
    pub rule: Option<usize>,
    pub warning: Option<&'c str>,
    /// When the recommender chose this model: its strongest reason, in
    /// plain words (`the word 'deadlock'`).
    pub learned: Option<String>,
}

/// Everything the gatekeeper decides from the prompt text alone.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis<'c> {
    pub check_mode: bool,
    pub word_count: usize,
    pub choice: ModelChoice<'c>,
    /// Rules passed over because the prompt was longer than their limit.
    pub skipped_for_length: Vec<usize>,
    /// `("high"|"low", keyword)`.
    pub effort: Option<(&'static str, &'c str)>,
    /// The recommender is on (per-session scope, `advice` not `keywords`).
    pub recommender: bool,
}

pub fn analyse<'c>(prompt: &str, config: &'c Config) -> Analysis<'c> {
    let (check_mode, rest) = match strip_check_prefix(prompt) {
        Some(rest) => (true, rest),
        None => (false, prompt),
    };
    // Per session, the tags the client wraps a paste in are not the user's
    // words: the keyword rules, the effort lists and the word count read
    // the text without them, as the recommender does (which takes them out
    // of `rest` itself). Global scope reads the prompt as v5 did.
    let untagged = match config.state.scope {
        super::config::StateScope::Session => super::advice::text_without_paste_tags(rest),
        super::config::StateScope::Global => std::borrow::Cow::Borrowed(rest),
    };
    let lowered = untagged.to_lowercase();
    let words = word_count(&lowered);
    let rules = config.rules();
    let effort_lists = config.effort_keywords();
    // Every keyword of every rule and effort list, found in one pass; the
    // lists are then read in order, as the reference tries them.
    let lists: Vec<&'c [super::config::Keyword]> = rules
        .iter()
        .map(|r| r.keywords.as_slice())
        .chain([effort_lists.high.as_slice(), effort_lists.low.as_slice()])
        .collect();
    let all: Vec<&str> = lists
        .iter()
        .flat_map(|l| l.iter().map(|k| k.as_str()))
        .collect();
    let hits = keywords::find_all(&all, &lowered);
    let mut first_of_list = Vec::with_capacity(lists.len());
    let mut at = 0;
    for list in &lists {
        let found = list
            .iter()
            .zip(&hits[at..at + list.len()])
            .find(|(_, hit)| **hit)
            .map(|(k, _)| k.as_str());
        first_of_list.push(found);
        at += list.len();
    }
    let mut skipped = Vec::new();
    let mut choice = None;
    for (i, rule) in rules.iter().enumerate() {
        if rule
            .word_limit(config.haiku_max_words)
            .is_some_and(|limit| words > limit)
        {
            skipped.push(i);
            continue;
        }
        if let Some(kw) = first_of_list[i] {
            choice = Some(ModelChoice {
                label: &rule.label,
                model: &rule.model,
                command: rule.command.as_deref().unwrap_or(&rule.model),
                purpose: &rule.purpose,
                trigger: kw,
                rule: Some(i),
                warning: rule.warning.as_deref(),
                learned: None,
            });
            break;
        }
    }
    let recommender = config.advice() == super::config::Advice::Learned;
    if choice.is_none() && recommender {
        choice = super::advice::advise(rest).map(|a| learned_choice(config, a));
    }
    let choice = choice.unwrap_or_else(|| default_choice(config));
    let n = rules.len();
    let effort = first_of_list[n]
        .map(|k| ("high", k))
        .or_else(|| first_of_list[n + 1].map(|k| ("low", k)));
    Analysis {
        check_mode,
        word_count: words,
        choice,
        skipped_for_length: skipped,
        effort,
        recommender,
    }
}

/// The prompt the recommender reads: without a `[check]` prefix.
pub fn without_check(prompt: &str) -> &str {
    strip_check_prefix(prompt).unwrap_or(prompt)
}

/// The label gk shows for a tier: the user's rule for it, else the
/// built-in one (Sonnet: the default model's).
pub fn tier_label(config: &Config, tier: super::advice::Tier) -> &str {
    if tier == super::advice::Tier::Sonnet {
        return &config.default_model.label;
    }
    config
        .models
        .iter()
        .chain(super::config::builtin_models())
        .find(|r| r.label.starts_with(tier.name()))
        .map_or(tier.name(), |r| r.label.as_str())
}

/// The model for the recommender's tier: the user's rule for it (its label
/// starts with the tier's name), else the built-in one.
fn learned_choice(config: &Config, advice: super::advice::Advice) -> ModelChoice<'_> {
    let name = advice.tier.name();
    let rule = config
        .models
        .iter()
        .chain(super::config::builtin_models())
        .find(|r| r.label.starts_with(name));
    match rule {
        Some(r) => ModelChoice {
            label: &r.label,
            model: &r.model,
            command: r.command.as_deref().unwrap_or(&r.model),
            purpose: super::voice::purpose_for(r, config),
            trigger: "recommender",
            rule: None,
            warning: r.warning.as_deref(),
            learned: Some(advice.reason),
        },
        // Every tier the recommender advises has a built-in rule.
        None => default_choice(config),
    }
}

/// The default model: no rule fired and the recommender said nothing.
fn default_choice(config: &Config) -> ModelChoice<'_> {
    let d = &config.default_model;
    ModelChoice {
        label: &d.label,
        model: &d.model,
        command: d.command.as_deref().unwrap_or(&d.model),
        purpose: &d.purpose,
        trigger: "default",
        rule: None,
        warning: d.warning.as_deref(),
        learned: None,
    }
}

/// The gatekeeper's reading of the state: `(is_clean, reason, stale_hours)`.
fn assess_state(
    state: &StateFile,
    now: SystemTime,
    stale_hours: u32,
) -> (bool, String, Option<i64>) {
    let StateRead::Object(map) = &state.read else {
        return (
            true,
            "task_state.json missing or unreadable -- assuming clean".into(),
            None,
        );
    };
    let status = map.get("status");
    let project_tag = state
        .truthy_shown("project", PROJECT_CHARS)
        .map(|p| format!(" [{p}]"))
        .unwrap_or_default();
    match status.and_then(Value::as_str) {
        Some("in_progress") => {
            let mut reason = format!(
                "task in progress: '{}'{project_tag}",
                state.shown("task", TASK_CHARS)
            );
            if let Some(detail) = state.truthy_shown("detail", DETAIL_CHARS) {
                reason.push_str(" -- ");
                reason.push_str(&detail);
            }
            let stale = state
                .age_seconds(now)
                .map(|s| s / 3600.0)
                .filter(|h| *h > f64::from(stale_hours))
                .map(|h| h as i64);
            (false, reason, stale)
        }
        Some("clean") => (true, "task_state.json: clean".into(), None),
        Some("unknown") => (
            true,
            "task_state.json missing or unreadable -- assuming clean".into(),
            None,
        ),
        Some("missing") => (
            true,
            "task_state.json has no status field -- assuming clean".into(),
            None,
        ),
        _ => match status {
            None => (
                true,
                "task_state.json has no status field -- assuming clean".into(),
                None,
            ),
            Some(v) => (
                true,
                format!(
                    "task_state.json status='{}' is not clean/in_progress -- assuming clean",
                    crate::text::one_line(&super::pytext::py_str(v), STATUS_CHARS)
                ),
                None,
            ),
        },
    }
}

/// Per session: gk's pick for the composer, or `None` when the model is
/// not shown (the config shows it only on a sign, and there was none).
pub fn pick<'c>(a: &Analysis<'c>, config: &Config) -> Option<super::voice::Pick<'c>> {
    let c = &a.choice;
    let show_model = config.show_model() == super::config::ShowModel::EveryPrompt
        || c.rule.is_some()
        || c.learned.is_some()
        || a.effort.is_some();
    if !show_model {
        return a.effort.map(|(e, _)| super::voice::Pick {
            command: "",
            label: "",
            why: String::new(),
            purpose: "",
            effort: Some(e),
            warning: None,
        });
    }
    let why = match (c.rule, &c.learned) {
        (Some(_), _) => format!("keyword '{}'", c.trigger),
        (None, Some(reason)) => format!("strongest sign: {reason}"),
        (None, None) if a.recommender => "no strong sign for another model: the default".into(),
        (None, None) => "no rule's keyword matched: the default".to_string(),
    };
    Some(super::voice::Pick {
        command: c.command,
        label: c.label,
        why,
        purpose: c.purpose,
        effort: a.effort.map(|(e, _)| e),
        warning: c.warning,
    })
}

/// Per session: the `[check]` header, when the prompt asked for it.
pub fn check_header(a: &Analysis<'_>) -> Option<&'static str> {
    a.check_mode.then_some(CHECK_HEADER)
}

/// A path Claude is asked to write, as the context gives it: on one line,
/// controls replaced (the folder's name comes from the user's
/// environment, and a line break in it could forge a line of gk's), and
/// bounded. The bound is past any path a system makes, so a real path is
/// given whole.
pub(super) fn written_path(path: &std::path::Path) -> String {
    crate::text::one_line(&path.to_string_lossy(), 4_096).into_owned()
}

/// The one sentence per-session scope adds to the context: where this
/// session's task_state.json is (the only `.json` path in the context).
/// It opens the context, before any text taken from a record, so no record
/// can push it past the client's cut of a long context.
pub fn record_sentence(record: &std::path::Path) -> String {
    format!(
        "[Task state] This session's task_state.json is {}. ",
        written_path(record)
    )
}

/// The sentence after [`record_sentence`] when the session's folder is
/// known: write the folder's pointer beside the record (so a later session
/// here finds the task), and, with the continuation hint on, give the
/// record a `next` line.
pub fn pointer_sentence(pointer: &std::path::Path, session_id: &str, next: bool) -> String {
    let session = crate::text::one_line(session_id, 300);
    let mut out = format!(
        " When you set it in_progress, also write {} with {{\"session\": \"{session}\"}} \
         (so a later session in this folder finds the task)",
        written_path(pointer)
    );
    if next {
        out.push_str(
            ", and give the record \"next\": one line recommending the model and effort \
             for the next prompt, and why",
        );
    }
    out.push('.');
    out
}

/// `(systemMessage, additionalContext)` for a prompt, from its
/// [`analyse`]d form (made once per hook call). `record`: this
/// session's record in per-session scope, named in one added sentence at
/// the start of the context (`None` leaves the v5 text exactly as it is).
pub fn respond(
    a: &Analysis<'_>,
    config: &Config,
    state: &StateFile,
    now: SystemTime,
    config_note: Option<&str>,
    record: Option<&std::path::Path>,
) -> (String, String) {
    let (is_clean, reason, stale) = assess_state(state, now, config.stale_hours);
    let plain = config.state.scope == super::config::StateScope::Session;
    // Per session the user's lines are the composer's (`super::voice`,
    // from [`pick`] and the turn); global scope keeps v5's.
    let msg = match plain {
        true => String::new(),
        false => v5_message(a, config, is_clean, config_note),
    };
    let mut ctx = state_context(a, plain, is_clean, &reason, stale);
    if let Some((effort, _)) = a.effort {
        ctx.push_str(&format!(" Suggested effort: {effort}."));
    }
    if let Some(w) = a.choice.warning {
        ctx.push(' ');
        ctx.push_str(w);
    }
    push_instruction(&mut ctx, a, config, plain, is_clean);
    if let Some(record) = record {
        ctx.insert_str(0, &record_sentence(record));
    }
    (msg, ctx)
}

/// The user's lines in global scope, as v5 prints them: the header, the
/// model and effort to use, the dirty-state warning and gk's notes; empty
/// when nothing is under the header.
fn v5_message(a: &Analysis<'_>, config: &Config, is_clean: bool, note: Option<&str>) -> String {
    let c = &a.choice;
    let show_model = config.show_model() == super::config::ShowModel::EveryPrompt
        || c.rule.is_some()
        || c.learned.is_some()
        || a.effort.is_some();
    let mut msg = String::from("GATEKEEPER");
    if a.check_mode {
        msg.push_str(CHECK_HEADER);
    }
    if show_model {
        msg.push_str(&format!(
            "\n Model : /model {} (trigger: '{}')\n Use for: {}",
            c.label, c.trigger, c.purpose
        ));
    }
    if let Some((effort, _)) = a.effort {
        msg.push_str(&format!("\n Effort : consider /effort {effort}"));
    }
    if !is_clean {
        msg.push_str("\n ! [DIRTY] task in progress -- hold off switching model/effort");
    }
    if let Some(w) = c.warning.filter(|_| show_model) {
        msg.push_str(&format!("\n ! {w}"));
    }
    if let Some(note) = note {
        msg.push_str(&format!("\n ! {note}"));
    }
    // Nothing under the header: nothing to show the user.
    if msg == "GATEKEEPER" {
        msg.clear();
    }
    msg
}

/// The context's first sentence: the task state and the suggested model
/// (per session with the command to type and why).
fn state_context(
    a: &Analysis<'_>,
    plain: bool,
    is_clean: bool,
    reason: &str,
    stale: Option<i64>,
) -> String {
    let c = &a.choice;
    let stale_note = stale
        .map(|h| format!(" WARNING: state has been in_progress for {h}h -- may be stale."))
        .unwrap_or_default();
    let state_text = if is_clean && reason == "task_state.json: clean" {
        "clean -- safe to switch model or effort".to_string()
    } else if is_clean {
        format!("clean ({reason}) -- safe to switch model or effort")
    } else {
        format!(
            "DIRTY ({reason}) -- hold off switching model or effort until current task is complete"
        )
    };
    if !plain {
        return format!(
            "[Gatekeeper] State: {state_text}.{stale_note} Suggested model: {} (matched keyword '{}'; {}).",
            c.label, c.trigger, c.purpose
        );
    }
    let why = match (c.rule, &c.learned) {
        (Some(_), _) => format!("matched keyword '{}'", c.trigger),
        (None, Some(reason)) => format!("the recommender's strongest sign: {reason}"),
        (None, None) if a.recommender => "no strong sign for another model, so the default".into(),
        (None, None) => "no rule's keyword matched, so the default".to_string(),
    };
    format!(
        "[Gatekeeper] State: {state_text}.{stale_note} Suggested model: {} (`/model {}`; {why}; {}).",
        c.label, c.command, c.purpose
    )
}

/// The instruction that ends the context: `[check]`'s (the models to
/// choose from), or what to do about the task state.
fn push_instruction(
    ctx: &mut String,
    a: &Analysis<'_>,
    config: &Config,
    plain: bool,
    is_clean: bool,
) {
    if a.check_mode {
        ctx.push(' ');
        ctx.push_str(CHECK_MODE_INSTRUCTION);
        ctx.push_str(&model_list(config));
        if a.recommender {
            // The guess is the recommender's, not a keyword's.
            ctx.push_str(&CHECK_MODE_AFTER_MODELS.replacen(
                "The keyword heuristic guessed ",
                "gk's recommender guessed ",
                1,
            ));
        } else {
            ctx.push_str(CHECK_MODE_AFTER_MODELS);
        }
        ctx.push_str(a.choice.label);
        ctx.push_str(CHECK_MODE_TAIL);
        if plain {
            ctx.push_str(&model_commands(config));
        }
        return;
    }
    let instruction = if is_clean {
        OPTION_D_CLEAN
    } else {
        OPTION_D_DIRTY
    };
    if plain {
        ctx.push_str(&instruction.replacen(" [Option D] ", " [Task state] ", 1));
    } else {
        ctx.push_str(instruction);
    }
}

/// Per session, after the `[check]` instruction: what to type after
/// `/model` for each model it names, so that the recommendation Claude
/// writes is one the client takes (a label such as `Opus 5.5` is taken as
/// an unknown model id): ` When you recommend a model, write the /model
/// command for it: /model <command> for <label>, …`, each model once: the
/// rules in order, then the default model.
fn model_commands(config: &Config) -> String {
    let mut seen: Vec<&str> = Vec::new();
    let mut pairs: Vec<String> = Vec::new();
    let rules = config
        .models
        .iter()
        .map(|r| (r.label.as_str(), r.command.as_deref().unwrap_or(&r.model)));
    let d = &config.default_model;
    let default = (d.label.as_str(), d.command.as_deref().unwrap_or(&d.model));
    for (label, command) in rules.chain([default]) {
        if !seen.contains(&label) {
            seen.push(label);
            pairs.push(format!("/model {command} for {label}"));
        }
    }
    format!(
        " When you recommend a model, write the /model command for it: {}.",
        pairs.join(", ")
    )
}

/// The models `[check]` mode asks Claude to choose from: every rule's
/// label, then the default model's, each once ("A, B or C"). With the v5
/// labels, in whatever order, the v5 text exactly.
fn model_list(config: &Config) -> String {
    let mut labels: Vec<&str> = Vec::new();
    let all = config.models.iter().map(|r| r.label.as_str());
    for label in all.chain([config.default_model.label.as_str()]) {
        if !labels.contains(&label) {
            labels.push(label);
        }
    }
    if labels.len() == V5_LABELS.len() && V5_LABELS.iter().all(|l| labels.contains(l)) {
        return V5_MODEL_LIST.to_string();
    }
    match labels.split_last() {
        Some((last, [])) => (*last).to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The keyword rules (global scope: the seed's, first match).
    fn keywords() -> Config {
        let mut c = Config::default();
        c.state.scope = crate::hooks::config::StateScope::Global;
        c
    }

    fn label(prompt: &str) -> (String, String) {
        let c = keywords();
        let a = analyse(prompt, &c);
        (a.choice.label.to_string(), a.choice.trigger.to_string())
    }

    #[test]
    fn check_mode_names_the_model_command_of_each_model_once() {
        let c = Config::default();
        assert_eq!(
            model_commands(&c),
            " When you recommend a model, write the /model command for it: /model claude-opus-5-5 for Opus 5.5, /model claude-sonnet-5 for Sonnet 5, /model claude-haiku-4-5-20251001 for Haiku 4.5, /model claude-fable-5-1 for Fable 5.1."
        );
        let mut c = Config::default();
        c.models[0].command = Some("opus".into());
        assert!(model_commands(&c).contains("/model opus for Opus 5.5,"));
        // Per session the check-mode context ends with it; global scope
        // keeps v5's bytes, without it.
        let missing = StateFile {
            read: StateRead::Missing,
            mtime: None,
        };
        let ctx = |c: &Config| {
            let a = analyse("[check] refactor", c);
            respond(&a, c, &missing, SystemTime::now(), None, None).1
        };
        c.state.scope = super::super::config::StateScope::Session;
        assert!(ctx(&c).ends_with("/model claude-fable-5-1 for Fable 5.1."));
        c.state.scope = super::super::config::StateScope::Global;
        assert!(!ctx(&c).contains("write the /model command"));
    }

    #[test]
    fn prompt_field_choice() {
        assert_eq!(prompt_of(&json!({"user_prompt": "a", "prompt": "b"})), "a");
        assert_eq!(prompt_of(&json!({"user_prompt": "", "prompt": "b"})), "b");
        assert_eq!(prompt_of(&json!({"user_prompt": 0, "prompt": "b"})), "b");
        assert_eq!(prompt_of(&json!({"user_prompt": 7, "prompt": "b"})), "b");
        assert_eq!(prompt_of(&json!({"prompt": null})), "");
        assert_eq!(prompt_of(&json!([1])), "");
    }

    #[test]
    fn seed_false_positives_do_not_fire() {
        assert_eq!(label("settle the bill").1, "default");
        assert_eq!(label("i know").1, "default");
        assert_eq!(label("look here").1, "default");
        assert_eq!(label("fix ttl2 please").1, "default");
    }

    #[test]
    fn haiku_only_up_to_eight_words() {
        assert_eq!(label("ok one two three four five six seven").0, "Haiku 4.5");
        assert_eq!(
            label("ok one two three four five six seven eight").1,
            "default"
        );
    }

    #[test]
    fn rule_order_and_effort_order() {
        assert_eq!(label("end to end ttl").0, "Opus 5.5");
        let c = keywords();
        assert_eq!(analyse("quick audit", &c).effort, Some(("high", "audit")));
        assert_eq!(analyse("quick look", &c).effort, Some(("low", "quick")));
    }

    #[test]
    fn per_session_the_recommender_decides_after_the_users_rules() {
        let c = Config::default();
        // The seed's keywords are not rules of the user's: "implement"
        // alone does not mean Opus, and a confirmation is the recommender's.
        let a = analyse("ok", &c);
        assert!(a.recommender && a.choice.rule.is_none());
        assert_eq!(a.choice.label, "Haiku 4.5");
        assert!(a.choice.learned.is_some());
        // A rule of the user's wins.
        let mine = Config {
            models: vec![super::super::config::rule("Big", "big-1", "hard", &["ok"])].into(),
            ..Config::default()
        };
        let a = analyse("ok", &mine);
        assert_eq!((a.choice.label, a.choice.rule), ("Big", Some(0)));
        assert!(a.choice.learned.is_none());
        // "advice": "keywords": the seed's rules, first match.
        let kw = Config {
            advice: Some(super::super::config::Advice::Keywords),
            ..Config::default()
        };
        let a = analyse("please implement it", &kw);
        assert_eq!(
            (a.choice.label, a.choice.trigger),
            ("Opus 5.5", "implement")
        );
        assert!(!a.recommender);
    }

    #[test]
    fn per_session_a_pastes_tags_are_not_words_of_the_prompt() {
        // As the pinned client hands a pasted block to the hook.
        let pasted = "fix it\n\n<pasted_content id=\"8581\">\nTypeError: x\n</pasted_content id=\"8581\">\n\n";
        let mine = Config {
            models: vec![super::super::config::rule("Mine", "m-1", "p", &["content"])].into(),
            ..Config::default()
        };
        let a = analyse(pasted, &mine);
        assert_eq!(a.choice.rule, None, "a tag's word fired the user's rule");
        assert_eq!(a.word_count, 4); // fix it TypeError: x
                                     // The same words typed fire it, tags or not.
        let typed = format!("{pasted} and the content");
        assert_eq!(analyse(&typed, &mine).choice.rule, Some(0));
        // Global scope reads the prompt as v5 does, tags and all.
        let mut global = mine.clone();
        global.state.scope = crate::hooks::config::StateScope::Global;
        let a = analyse(pasted, &global);
        assert_eq!(a.choice.rule, Some(0));
        assert_eq!(a.word_count, 8);
    }

    #[test]
    fn the_wider_effort_rule_goes_with_the_recommender() {
        let c = Config::default();
        assert_eq!(
            analyse("go through it thoroughly", &c).effort,
            Some(("high", "thoroughly"))
        );
        assert_eq!(
            analyse("go through it thoroughly", &keywords()).effort,
            None
        );
        let mut mine = Config::default();
        mine.effort.high = super::super::config::keywords(&["deep"]);
        assert_eq!(analyse("go through it thoroughly", &mine).effort, None);
    }
}

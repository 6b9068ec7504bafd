//! gk's own config file, `<claude dir>/hooks/gk.json`: what the seed's users
//! did by editing `ENABLED` and `MODEL_RULES` in the Python scripts, without
//! touching code. Every key is optional; an absent file means the built-in
//! v5 rules. A file that cannot be used never stops a hook: the hook runs on
//! the defaults and says why in one line (see `ConfigError`).
//!
//! ```json
//! {
//!   "prompt": { "enabled": true },
//!   "stop": { "enabled": true },
//!   "session": { "enabled": true },
//!   "models": [
//!     { "label": "Opus 5.5", "model": "claude-opus-5-5",
//!       "purpose": "deep work", "keywords": ["ttl", "sparql"] },
//!     { "label": "Haiku 4.5", "model": "claude-haiku-4-5-20251001",
//!       "purpose": "one-liners", "keywords": ["ok"], "max_words": 8 }
//!   ],
//!   "default_model": { "label": "Sonnet 5", "model": "claude-sonnet-5",
//!                      "purpose": "edits" },
//!   "effort": { "high": ["audit"], "low": ["quick"] },
//!   "haiku_max_words": 8,
//!   "stale_hours": 24,
//!   "state": { "scope": "session", "next": true },
//!   "switch": "ask"
//! }
//! ```

use std::borrow::Cow;
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub prompt: HookSwitch,
    #[serde(default)]
    pub stop: HookSwitch,
    /// `gk hook session` (SessionStart): the setup check.
    #[serde(default)]
    pub session: HookSwitch,
    /// Tried in order; the first rule with a keyword in the prompt wins.
    #[serde(default)]
    pub models: Defaulted<Vec<ModelRule>>,
    /// Recommended when no rule matches.
    #[serde(default = "default_default_model")]
    pub default_model: DefaultModel,
    #[serde(default)]
    pub effort: Defaulted<EffortKeywords>,
    /// Word limit for rules whose label starts with "Haiku" and that set no
    /// `max_words` of their own.
    #[serde(default = "default_haiku_max_words")]
    pub haiku_max_words: usize,
    /// An `in_progress` state older than this many hours is flagged stale.
    #[serde(default = "default_stale_hours")]
    pub stale_hours: u32,
    /// Where the task state lives: one record per session (the default) or
    /// v5's single shared file.
    #[serde(default)]
    pub state: StateConfig,
    /// When the prompt hook shows the model advice to the user; absent:
    /// [`ShowModel::default_for`] the scope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub show_model: Option<ShowModel>,
    /// How the per-session prompt hook picks a model; absent:
    /// [`Advice::Learned`]. Global scope always uses the keyword rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advice: Option<Advice>,
    /// What the switch guard does when the model is switched mid-task.
    #[serde(default)]
    pub switch: SwitchMode,
}

/// `"switch"` in gk.json: what `gk hook pre-model-switch` answers when the
/// model is switched while a task is in progress (and whether
/// `gk hook post-model-switch` speaks).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum SwitchMode {
    /// Ask the user to confirm, with the reason (interactive switches only).
    #[default]
    Ask,
    /// No question; the reason is shown with the next prompt.
    Warn,
    /// Refuse the switch (`deny`) until the task is done.
    Block,
    /// Both switch hooks print nothing.
    Off,
}

impl TryFrom<String> for SwitchMode {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        match s.as_str() {
            "ask" => Ok(SwitchMode::Ask),
            "warn" => Ok(SwitchMode::Warn),
            "block" => Ok(SwitchMode::Block),
            "off" => Ok(SwitchMode::Off),
            _ => Err(format!(
                "unknown switch {s:?}, expected \"ask\", \"warn\", \"block\" or \"off\""
            )),
        }
    }
}

impl From<SwitchMode> for String {
    fn from(s: SwitchMode) -> String {
        match s {
            SwitchMode::Ask => "ask".into(),
            SwitchMode::Warn => "warn".into(),
            SwitchMode::Block => "block".into(),
            SwitchMode::Off => "off".into(),
        }
    }
}

/// `"learned"`: the recommender (src/hooks/advice.rs) decides, after the
/// user's own rules: a `models` rule whose keyword matches still wins.
/// `"keywords"`: the `models` rules alone, first match wins, as in global
/// scope (the seed's rules when `models` is left out).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Advice {
    Learned,
    Keywords,
}

impl TryFrom<String> for Advice {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        match s.as_str() {
            "learned" => Ok(Advice::Learned),
            "keywords" => Ok(Advice::Keywords),
            _ => Err(format!(
                "unknown advice {s:?}, expected \"learned\" or \"keywords\""
            )),
        }
    }
}

impl From<Advice> for String {
    fn from(a: Advice) -> String {
        match a {
            Advice::Learned => "learned".into(),
            Advice::Keywords => "keywords".into(),
        }
    }
}

/// `"every_prompt"`: the model lines on every prompt (v5). `"on_match"`:
/// only when a rule's keyword matched or an effort keyword did; the task
/// state warning and `[check]` always show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum ShowModel {
    EveryPrompt,
    OnMatch,
}

impl TryFrom<String> for ShowModel {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        match s.as_str() {
            "every_prompt" => Ok(ShowModel::EveryPrompt),
            "on_match" => Ok(ShowModel::OnMatch),
            _ => Err(format!(
                "unknown show_model {s:?}, expected \"every_prompt\" or \"on_match\""
            )),
        }
    }
}

impl From<ShowModel> for String {
    fn from(s: ShowModel) -> String {
        match s {
            ShowModel::EveryPrompt => "every_prompt".into(),
            ShowModel::OnMatch => "on_match".into(),
        }
    }
}

impl ShowModel {
    /// Global scope keeps v5's every prompt; per session, only advice that
    /// says something (the default model on every prompt is the same line
    /// again and again: docs/configuration.md).
    pub fn default_for(scope: StateScope) -> ShowModel {
        match scope {
            StateScope::Global => ShowModel::EveryPrompt,
            StateScope::Session => ShowModel::OnMatch,
        }
    }
}

impl Config {
    /// The advice in force: global scope is v5's keywords whatever gk.json says.
    pub fn advice(&self) -> Advice {
        match self.state.scope {
            StateScope::Global => Advice::Keywords,
            StateScope::Session => self.advice.unwrap_or(Advice::Learned),
        }
    }

    /// The rules the prompt hook tries first. With the recommender, only
    /// the user's own: a `models` list left out (or the built-in list
    /// saved unchanged from an older `gk rules`) is none.
    pub fn rules(&self) -> &[ModelRule] {
        if self.advice() == Advice::Learned && self.models.is_builtin() {
            return &[];
        }
        &self.models
    }

    /// The effort keywords in force: with the recommender, the built-in
    /// lists are the wider [`learned_effort`] ones; lists of the user's
    /// own are used as they are.
    pub fn effort_keywords(&self) -> &EffortKeywords {
        if self.advice() == Advice::Learned && self.effort.is_builtin() {
            return learned_effort();
        }
        &self.effort
    }

    /// The `show_model` in force.
    pub fn show_model(&self) -> ShowModel {
        self.show_model
            .unwrap_or_else(|| ShowModel::default_for(self.state.scope))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateConfig {
    #[serde(default)]
    pub scope: StateScope,
    /// The continuation hint: the prompt hook asks Claude to give a record
    /// in progress a `next` line (the model and effort it recommends for
    /// the next prompt, and why), and the hooks show it. Per-session scope
    /// only: in global scope it is off whatever this says (v5's output).
    #[serde(default = "yes")]
    pub next: bool,
}

impl Default for StateConfig {
    fn default() -> Self {
        StateConfig {
            scope: StateScope::default(),
            next: true,
        }
    }
}

impl StateConfig {
    /// Whether the hooks ask for and show `next` (see [`StateConfig::next`]).
    pub fn next_on(&self) -> bool {
        self.next && self.scope == StateScope::Session
    }
}

/// `"session"`: each session keeps its own record in the state folder and
/// the prompt hook names it; a session without one shows the shared
/// record. `"global"`: v5 exactly — the one `<claude dir>/hooks/task_state.json`,
/// hook output byte for byte the Python scripts'.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum StateScope {
    #[default]
    Session,
    Global,
}

impl TryFrom<String> for StateScope {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        match s.as_str() {
            "session" => Ok(StateScope::Session),
            "global" => Ok(StateScope::Global),
            _ => Err(format!(
                "unknown state scope {s:?}, expected \"session\" or \"global\""
            )),
        }
    }
}

impl From<StateScope> for String {
    fn from(s: StateScope) -> String {
        match s {
            StateScope::Session => "session".into(),
            StateScope::Global => "global".into(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HookSwitch {
    #[serde(default = "yes")]
    pub enabled: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelRule {
    #[serde(deserialize_with = "name_text")]
    pub label: String,
    #[serde(deserialize_with = "name_text")]
    pub model: String,
    #[serde(deserialize_with = "sentence_text")]
    pub purpose: String,
    pub keywords: Vec<Keyword>,
    /// The rule only applies to prompts of at most this many words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_words: Option<usize>,
    /// Shown to the user and to Claude whenever this rule is recommended.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "some_sentence_text"
    )]
    pub warning: Option<String>,
    /// What to type after `/model` (an alias such as `opus`); absent: the
    /// model id, which the client takes as typed.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "some_name_text"
    )]
    pub command: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DefaultModel {
    #[serde(deserialize_with = "name_text")]
    pub label: String,
    #[serde(deserialize_with = "name_text")]
    pub model: String,
    #[serde(deserialize_with = "sentence_text")]
    pub purpose: String,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "some_sentence_text"
    )]
    pub warning: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "some_name_text"
    )]
    pub command: Option<String>,
}

/// The most characters of a name in gk.json (a label, a model id, a
/// `/model` argument, a keyword) and of a sentence (a purpose, a warning):
/// each is shown on the user's line and in Claude's context on every
/// prompt it decides.
const NAME_CHARS: usize = 200;
const SENTENCE_CHARS: usize = 1_000;

/// A string of gk.json that gk shows: at most `max` characters, none that
/// could change how a terminal or Claude reads the text around it (a
/// control character, a line break, an escape, a direction mark).
fn shown_text<E: serde::de::Error>(s: String, max: usize) -> Result<String, E> {
    if let Some(c) = s.chars().find(|&c| crate::text::is_unsafe(c)) {
        return Err(E::custom(format!(
            "{:?} holds the character U+{:04X}, which gk does not show (a control, line-break or direction character)",
            crate::text::one_line(&s, 60),
            u32::from(c)
        )));
    }
    let n = s.chars().count();
    if n > max {
        return Err(E::custom(format!(
            "a text of {n} characters; gk shows at most {max} here"
        )));
    }
    Ok(s)
}

fn name_text<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    shown_text(String::deserialize(d)?, NAME_CHARS)
}

fn sentence_text<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    shown_text(String::deserialize(d)?, SENTENCE_CHARS)
}

fn some_name_text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Option::<String>::deserialize(d)?
        .map(|s| shown_text(s, NAME_CHARS))
        .transpose()
}

fn some_sentence_text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Option::<String>::deserialize(d)?
        .map(|s| shown_text(s, SENTENCE_CHARS))
        .transpose()
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EffortKeywords {
    /// Checked first.
    #[serde(default = "default_effort_high")]
    pub high: Vec<Keyword>,
    #[serde(default = "default_effort_low")]
    pub low: Vec<Keyword>,
}

/// A keyword: non-empty and lower-case (prompts are lower-cased before
/// matching, so a keyword with capitals could never fire).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Keyword(Cow<'static, str>);

impl Keyword {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&'static str> for Keyword {
    /// A built-in keyword (lower-case by construction), borrowed, not copied.
    fn from(k: &'static str) -> Self {
        Keyword(Cow::Borrowed(k))
    }
}

impl<'de> Deserialize<'de> for Keyword {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = shown_text(String::deserialize(d)?, NAME_CHARS)?;
        if s.is_empty() {
            return Err(serde::de::Error::custom("a keyword may not be empty"));
        }
        if s.to_lowercase() != s {
            return Err(serde::de::Error::custom(format!(
                "keyword {s:?} has capitals and could never match (prompts are matched lower-cased)"
            )));
        }
        Ok(Keyword(Cow::Owned(s)))
    }
}

impl Config {
    /// Is `kind` switched on (`"<config key>": {"enabled": …}`, on when
    /// absent)?
    pub fn enabled(&self, kind: crate::hookcmd::HookKind) -> bool {
        use crate::hookcmd::HookKind;
        match kind {
            HookKind::Prompt => self.prompt.enabled,
            HookKind::Stop => self.stop.enabled,
            HookKind::Session => self.session.enabled,
            HookKind::PreSwitch | HookKind::PostSwitch => self.switch != SwitchMode::Off,
        }
    }

    /// `kind`'s switch (its row's `config_key`).
    /// `None` for the switch hooks, whose key holds a [`SwitchMode`].
    fn switch_mut(&mut self, kind: crate::hookcmd::HookKind) -> Option<&mut HookSwitch> {
        use crate::hookcmd::HookKind;
        match kind {
            HookKind::Prompt => Some(&mut self.prompt),
            HookKind::Stop => Some(&mut self.stop),
            HookKind::Session => Some(&mut self.session),
            HookKind::PreSwitch | HookKind::PostSwitch => None,
        }
    }
}

impl ModelRule {
    /// The word limit that applies to this rule, if any.
    pub fn word_limit(&self, haiku_max_words: usize) -> Option<usize> {
        self.max_words
            .or_else(|| self.label.starts_with("Haiku").then_some(haiku_max_words))
    }
}

impl Default for HookSwitch {
    fn default() -> Self {
        HookSwitch { enabled: true }
    }
}

impl Default for EffortKeywords {
    fn default() -> Self {
        EffortKeywords {
            high: default_effort_high(),
            low: default_effort_low(),
        }
    }
}

impl Default for Config {
    /// The v5 rules, exactly as the Python gatekeeper has them.
    fn default() -> Self {
        Config {
            prompt: HookSwitch::default(),
            stop: HookSwitch::default(),
            session: HookSwitch::default(),
            models: Defaulted::Builtin,
            default_model: default_default_model(),
            effort: Defaulted::Builtin,
            haiku_max_words: default_haiku_max_words(),
            stale_hours: default_stale_hours(),
            state: StateConfig::default(),
            switch: SwitchMode::default(),
            show_model: None,
            advice: None,
        }
    }
}

/// The seed's model rules, built once (the recommender's tiers take their
/// labels, model ids and purposes from here when gk.json has no rule for
/// them).
/// The seed's words for its Opus rule (global scope shows them as v5 did).
pub const SEED_OPUS_PURPOSE: &str =
    "complex reasoning, TTL/SPARQL authoring, ontology work, deep reviews";

pub fn builtin_models() -> &'static Vec<ModelRule> {
    static MODELS: std::sync::OnceLock<Vec<ModelRule>> = std::sync::OnceLock::new();
    MODELS.get_or_init(default_models)
}

fn builtin_effort() -> &'static EffortKeywords {
    static EFFORT: std::sync::OnceLock<EffortKeywords> = std::sync::OnceLock::new();
    EFFORT.get_or_init(EffortKeywords::default)
}

/// A gk.json list the user may leave out: the built-in one, shared and
/// built only when something reads it (the prompt hook with the
/// recommender never does, so it never builds the seed's rules), or the
/// user's own. Reads as the list either way; written out as the list.
#[derive(Clone, Default)]
pub enum Defaulted<T: Builtin> {
    #[default]
    Builtin,
    Own(T),
}

/// A list with a built-in value, built once when first read.
pub trait Builtin: Sized + 'static {
    fn builtin() -> &'static Self;
}

impl Builtin for Vec<ModelRule> {
    fn builtin() -> &'static Self {
        builtin_models()
    }
}

impl Builtin for EffortKeywords {
    fn builtin() -> &'static Self {
        builtin_effort()
    }
}

impl<T: Builtin + PartialEq> Defaulted<T> {
    /// Left out, or the built-in list written out unchanged (as an older
    /// `gk rules` saved it). Only a list the user wrote is compared.
    pub fn is_builtin(&self) -> bool {
        match self {
            Defaulted::Builtin => true,
            Defaulted::Own(own) => own == T::builtin(),
        }
    }
}

impl<T: Builtin> Deref for Defaulted<T> {
    type Target = T;
    fn deref(&self) -> &T {
        match self {
            Defaulted::Builtin => T::builtin(),
            Defaulted::Own(own) => own,
        }
    }
}

impl<T: Builtin + Clone> DerefMut for Defaulted<T> {
    /// Editing the built-in list makes it the user's own copy.
    fn deref_mut(&mut self) -> &mut T {
        if let Defaulted::Builtin = self {
            *self = Defaulted::Own(T::builtin().clone());
        }
        match self {
            Defaulted::Own(own) => own,
            Defaulted::Builtin => unreachable!("made the user's own just above"),
        }
    }
}

impl<T: Builtin> From<T> for Defaulted<T> {
    fn from(own: T) -> Self {
        Defaulted::Own(own)
    }
}

impl<T: Builtin + PartialEq> PartialEq for Defaulted<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Builtin + PartialEq> PartialEq<T> for Defaulted<T> {
    fn eq(&self, other: &T) -> bool {
        **self == *other
    }
}

impl<T: Builtin + fmt::Debug> fmt::Debug for Defaulted<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

impl<T: Builtin + Serialize> Serialize for Defaulted<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(s)
    }
}

impl<'de, T: Builtin + Deserialize<'de>> Deserialize<'de> for Defaulted<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::deserialize(d).map(Defaulted::Own)
    }
}

/// The effort rule beside the recommender: the seed's keywords and more of
/// the same kind (the seed's rule beat a learned effort model, so the rule
/// stays and its lists grow). High first, as in v5.
pub fn learned_effort() -> &'static EffortKeywords {
    static EFFORT: std::sync::OnceLock<EffortKeywords> = std::sync::OnceLock::new();
    EFFORT.get_or_init(|| EffortKeywords {
        high: keywords(LEARNED_EFFORT_HIGH),
        low: keywords(LEARNED_EFFORT_LOW),
    })
}

pub const LEARNED_EFFORT_HIGH: &[&str] = &[
    "review all",
    "self-review",
    "full review",
    "check everything",
    "audit",
    "validate all",
    "integrity check",
    "deep review",
    "thoroughly",
    "in depth",
    "in-depth",
    "deep dive",
    "exhaustive",
    "exhaustively",
    "leave no stone unturned",
    "think hard",
    "think harder",
    "ultrathink",
    "very carefully",
    "security review",
    "security audit",
    "thorough",
    "check all",
    "check every",
    "review every",
    "review everything",
    "double check everything",
];

pub const LEARNED_EFFORT_LOW: &[&str] = &[
    "quick",
    "briefly",
    "one line",
    "just check",
    "in short",
    "quickly",
    "real quick",
    "quick question",
    "short answer",
    "tl;dr",
    "tldr",
    "one word",
    "yes or no",
    "just tell me",
    "don't overthink",
    "dont overthink",
    "one-line",
    "one-liner",
    "in a sentence",
    "short version",
    "short explanation",
];

fn yes() -> bool {
    true
}

pub(crate) fn keywords(list: &[&'static str]) -> Vec<Keyword> {
    list.iter().map(|k| Keyword::from(*k)).collect()
}

pub(crate) fn rule(label: &str, model: &str, purpose: &str, kws: &[&'static str]) -> ModelRule {
    ModelRule {
        label: label.into(),
        model: model.into(),
        purpose: purpose.into(),
        keywords: keywords(kws),
        max_words: None,
        warning: None,
        command: None,
    }
}

pub const FABLE_WARNING: &str = "NOTE: Fable 5.1 is the most expensive tier. \
Only use it if this is truly a long-horizon autonomous task \
that Opus at high effort cannot handle.";

fn default_models() -> Vec<ModelRule> {
    let mut fable = rule(
        "Fable 5.1",
        "claude-fable-5-1",
        "long-horizon multi-step autonomous tasks only -- most expensive tier",
        &[
            "full build",
            "end to end",
            "end-to-end",
            "all phases",
            "entire p1",
            "entire build",
            "autonomous",
            "multi-step workflow",
            "run the whole",
            "build and validate and upload",
            "run everything",
            "do the whole",
        ],
    );
    fable.warning = Some(FABLE_WARNING.into());
    vec![
        rule(
            "Opus 5.5",
            "claude-opus-5-5",
            SEED_OPUS_PURPOSE,
            &[
                "ttl",
                "turtle",
                "sparql",
                "owl",
                "ontology",
                "rdf",
                "implement",
                "build the",
                "write the",
                "generate",
                "create a script",
                "review all",
                "self-review",
                "full review",
                "architecture",
                "master plan",
                "masterplan",
                "phase p1",
                "phase p2",
                "phase p3",
                "validate",
                "anzo",
                "graphmart",
            ],
        ),
        rule(
            "Sonnet 5",
            "claude-sonnet-5",
            "edits, explanations, updates, medium-complexity tasks",
            &[
                "explain",
                "summarise",
                "summarize",
                "update",
                "edit",
                "add a line",
                "what is",
                "how does",
                "can you check",
                "what does",
                "describe",
                "clarify",
                "in short",
                "quick",
                "brief",
            ],
        ),
        rule(
            "Haiku 4.5",
            "claude-haiku-4-5-20251001",
            "one-liners, confirmations, trivial follow-ups",
            &[
                "yes",
                "no",
                "ok",
                "okay",
                "thanks",
                "great",
                "go ahead",
                "proceed",
                "continue",
                "sounds good",
                "make it so",
                "done",
            ],
        ),
        fable,
    ]
}

fn default_default_model() -> DefaultModel {
    DefaultModel {
        label: "Sonnet 5".into(),
        model: "claude-sonnet-5".into(),
        purpose: "edits, explanations, updates, medium-complexity tasks".into(),
        warning: None,
        command: None,
    }
}

fn default_effort_high() -> Vec<Keyword> {
    keywords(&[
        "review all",
        "self-review",
        "full review",
        "check everything",
        "audit",
        "validate all",
        "integrity check",
        "deep review",
    ])
}

fn default_effort_low() -> Vec<Keyword> {
    keywords(&["quick", "briefly", "one line", "just check", "in short"])
}

fn default_haiku_max_words() -> usize {
    8
}

fn default_stale_hours() -> u32 {
    24
}

/// Why a config file was not used. Displays as `path:line:col: reason` (or
/// `path: reason` when there is no position), e.g.
/// `/home/u/.claude/hooks/gk.json:3:14: invalid type: string "yes", expected a boolean`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub path: PathBuf,
    /// 1-based line and column of the problem, when known.
    pub position: Option<(usize, usize)>,
    pub reason: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some((line, col)) => write!(f, "{}:{line}:{col}: {}", self.path.display(), self.reason),
            None => write!(f, "{}: {}", self.path.display(), self.reason),
        }
    }
}

impl std::error::Error for ConfigError {}

/// The outcome of reading a config file, with the one thing the hooks still
/// honour from a file they cannot otherwise use: an explicit
/// `"enabled": false`.
#[derive(Debug, Clone)]
pub struct LoadedConfig {
    pub config: Config,
    pub error: Option<ConfigError>,
}

/// What the hooks use: the config, or the defaults plus the reason the file
/// was ignored. A file that is valid JSON but otherwise wrong still switches
/// a hook off when it says `"enabled": false` for it, and still keeps the
/// v5 state when it says `"state": {"scope": "global"}`: a choice the user
/// made is not undone by a typo elsewhere.
pub fn load_for_hooks(path: &Path) -> LoadedConfig {
    let text = match read_config_text(path) {
        Ok(None) => {
            return LoadedConfig {
                config: Config::default(),
                error: None,
            }
        }
        Ok(Some(text)) => text,
        Err(e) => {
            return LoadedConfig {
                config: Config::default(),
                error: Some(e),
            }
        }
    };
    for_hooks(path, &text)
}

/// What the hooks make of gk.json's `text` (as [`load_for_hooks`] has it:
/// decoded, one byte order mark taken off): the config, or the defaults
/// with what the file still switches off, and the reason. `gk enable` and
/// `gk disable` ask it of the text they would write.
pub fn for_hooks(path: &Path, text: &str) -> LoadedConfig {
    if text.trim_matches([' ', '\t', '\n', '\r']).is_empty() {
        return LoadedConfig {
            config: Config::default(),
            error: None,
        };
    }
    match parse_config(path, text) {
        Ok(config) => LoadedConfig {
            config,
            error: None,
        },
        Err(e) => {
            let mut config = Config::default();
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(text) {
                for kind in crate::hookcmd::HookKind::ALL {
                    let key = kind.spec().config_key;
                    if v.get(key).and_then(|s| s.get("enabled"))
                        == Some(&serde_json::Value::Bool(false))
                    {
                        if let Some(switch) = config.switch_mut(kind) {
                            switch.enabled = false;
                        }
                    }
                }
                if v.get("switch").and_then(|s| s.as_str()) == Some("off") {
                    config.switch = SwitchMode::Off;
                }
                if v.get("state")
                    .and_then(|s| s.get("scope"))
                    .and_then(|s| s.as_str())
                    == Some("global")
                {
                    config.state.scope = StateScope::Global;
                }
            }
            LoadedConfig {
                config,
                error: Some(e),
            }
        }
    }
}

/// The largest gk.json the hooks read (a full rule set is a few KiB).
/// `gk enable` / `gk disable` read with the same limit, so they never edit
/// a file the hooks would ignore.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

fn read_config_text(path: &Path) -> Result<Option<String>, ConfigError> {
    use crate::bounded::{read, ReadError};
    let refuse = |reason: String| ConfigError {
        path: path.to_path_buf(),
        position: None,
        reason,
    };
    let bytes = match read(path, MAX_CONFIG_BYTES) {
        Ok(c) => c.bytes,
        // No file, or no hooks folder: nothing configured.
        Err(ReadError::NotFound) => return Ok(None),
        Err(ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotADirectory => return Ok(None),
        Err(e @ ReadError::Io(_)) => {
            return Err(refuse(format!("could not read it: {}", e.reason())))
        }
        Err(e) => return Err(refuse(e.reason())),
    };
    // Windows PowerShell 5.1's `gk rules > gk.json` writes UTF-16 with a BOM.
    let utf16 = match bytes.get(..2) {
        Some([0xFF, 0xFE]) => Some(u16::from_le_bytes as fn([u8; 2]) -> u16),
        Some([0xFE, 0xFF]) => Some(u16::from_be_bytes as fn([u8; 2]) -> u16),
        _ => None,
    };
    if let Some(unit) = utf16 {
        let units = bytes[2..].chunks(2).map(|c| match c {
            [a, b] => unit([*a, *b]),
            // An odd trailing byte: not UTF-16 text.
            _ => 0xDC00,
        });
        return match char::decode_utf16(units).collect::<Result<String, _>>() {
            Ok(s) => Ok(unless_blank(s)),
            Err(_) => Err(refuse(
                "not UTF-16 text, though it starts with a UTF-16 byte order mark".into(),
            )),
        };
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(unless_blank(s.to_string())),
        Err(e) => Err(ConfigError {
            path: path.to_path_buf(),
            position: None,
            reason: format!(
                "not UTF-8 text (invalid byte at offset {})",
                e.valid_up_to()
            ),
        }),
    }
}

/// An empty or blank file configures nothing, like an absent one (and as
/// `gk enable` / `gk disable` see it). This is also what the hooks and
/// `gk rules` meet while `gk rules > gk.json` runs: the shell has created the
/// file empty before gk reads it.
fn unless_blank(text: String) -> Option<String> {
    (!text.trim_matches([' ', '\t', '\n', '\r']).is_empty()).then_some(text)
}

/// Parse config text; `path` is only used to name the file in errors.
pub fn parse_config(path: &Path, text: &str) -> Result<Config, ConfigError> {
    // serde would also read a struct from a JSON array; a config is an object.
    let body = text.trim_start_matches([' ', '\t', '\n', '\r']);
    if !body.is_empty() && !body.starts_with('{') {
        let before = &text[..text.len() - body.len()];
        let line = before.matches('\n').count() + 1;
        let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
        return Err(ConfigError {
            path: path.to_path_buf(),
            position: Some((line, col)),
            reason: "expected a JSON object".into(),
        });
    }
    serde_json::from_str::<Config>(text).map_err(|e| {
        let full = e.to_string();
        let reason = match full.rfind(" at line ") {
            Some(i) => full[..i].to_string(),
            None => full,
        };
        ConfigError {
            path: path.to_path_buf(),
            position: (e.line() > 0).then(|| (e.line(), e.column())),
            reason,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        parse_config(Path::new("gk.json"), text)
    }

    #[test]
    fn empty_object_is_the_defaults() {
        assert_eq!(parse("{}").unwrap(), Config::default());
    }

    #[test]
    fn printed_defaults_read_back_identically() {
        let text = serde_json::to_string_pretty(&Config::default()).unwrap();
        assert_eq!(parse(&text).unwrap(), Config::default());
    }

    #[test]
    fn partial_overrides_keep_the_rest() {
        let c =
            parse(r#"{"stop": {"enabled": false}, "effort": {"low": ["tiny"]}, "stale_hours": 2}"#)
                .unwrap();
        assert!(!c.stop.enabled && c.prompt.enabled);
        assert_eq!(c.effort.low, vec![Keyword("tiny".into())]);
        assert_eq!(c.effort.high, default_effort_high());
        assert_eq!(c.stale_hours, 2);
        assert_eq!(c.models, default_models());
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let e = parse("{\n  \"stop\": {\"enabled\": \"no\"}\n}").unwrap_err();
        assert_eq!(e.position, Some((2, 26)));
        assert_eq!(
            e.to_string(),
            "gk.json:2:26: invalid type: string \"no\", expected a boolean"
        );
        let e = parse("{\"modles\": []}").unwrap_err();
        assert!(
            e.reason.starts_with("unknown field `modles`"),
            "{}",
            e.reason
        );
        let e = parse("\n  [1]").unwrap_err();
        assert_eq!(e.to_string(), "gk.json:2:3: expected a JSON object");
        let e = parse("{,}").unwrap_err();
        assert_eq!(e.position, Some((1, 2)));
    }

    #[test]
    fn keywords_must_be_usable() {
        let base = r#"{"effort": {"high": [KW]}}"#;
        assert!(parse(&base.replace("KW", "\"\""))
            .unwrap_err()
            .reason
            .contains("empty"));
        assert!(parse(&base.replace("KW", "\"Audit\""))
            .unwrap_err()
            .reason
            .contains("capitals"));
    }

    #[test]
    fn text_gk_shows_holds_no_control_characters_and_has_a_bound() {
        let rule = |field: &str, value: &str| {
            let mut r =
                serde_json::json!({"label": "L", "model": "m", "purpose": "p", "keywords": ["k"]});
            r[field] = if field == "keywords" {
                serde_json::json!([value])
            } else {
                serde_json::json!(value)
            };
            serde_json::json!({"models": [r]}).to_string()
        };
        let fields = [
            "label", "model", "purpose", "warning", "command", "keywords",
        ];
        for field in fields {
            assert!(parse(&rule(field, "plain text")).is_ok(), "{field}");
            for bad in [
                "a\u{1b}[31mred",
                "two\nlines",
                "\u{9b}2J",
                "rtl\u{202e}x",
                "bell\u{7}",
            ] {
                let e = parse(&rule(field, bad)).unwrap_err();
                assert!(e.reason.contains("does not show"), "{field} {bad:?}: {e}");
                assert!(e.position.is_some(), "{field}: {e}");
                assert!(!e.to_string().chars().any(crate::text::is_unsafe), "{e}");
            }
        }
        let long = "x".repeat(NAME_CHARS + 1);
        for field in ["label", "model", "command", "keywords"] {
            let e = parse(&rule(field, &long)).unwrap_err();
            assert!(e.reason.contains("at most 200"), "{field}: {e}");
        }
        assert!(parse(&rule("purpose", &long)).is_ok());
        let longer = "x".repeat(SENTENCE_CHARS + 1);
        assert!(parse(&rule("warning", &longer))
            .unwrap_err()
            .reason
            .contains("at most 1000"));
        let default = serde_json::json!({"default_model": {"label": "L", "model": "m", "purpose": "p\u{1b}"}});
        let effort = serde_json::json!({"effort": {"low": ["quick\u{7}"]}});
        for text in [default.to_string(), effort.to_string()] {
            assert!(
                parse(&text).unwrap_err().reason.contains("does not show"),
                "{text}"
            );
        }
    }

    #[test]
    fn state_scope_is_session_unless_global() {
        assert_eq!(parse("{}").unwrap().state.scope, StateScope::Session);
        let c = parse(r#"{"state": {"scope": "global"}}"#).unwrap();
        assert_eq!(c.state.scope, StateScope::Global);
        assert!(parse(r#"{"state": {"scope": "shared"}}"#).is_err());
        assert!(parse(r#"{"state": {"scop": "global"}}"#).is_err());
    }

    #[test]
    fn advice_is_learned_per_session_unless_keywords_and_always_keywords_globally() {
        let c = parse("{}").unwrap();
        assert_eq!(c.advice(), Advice::Learned);
        assert!(c.rules().is_empty(), "the seed's rules are not the user's");
        assert!(c.effort_keywords().high.len() > c.effort.high.len());
        let c = parse(r#"{"advice": "keywords"}"#).unwrap();
        assert_eq!(c.advice(), Advice::Keywords);
        assert_eq!(c.rules(), default_models().as_slice());
        assert_eq!(c.effort_keywords(), &*c.effort);
        let c = parse(r#"{"advice": "learned", "state": {"scope": "global"}}"#).unwrap();
        assert_eq!(c.advice(), Advice::Keywords);
        let c = parse(r#"{"models": []}"#).unwrap();
        assert!(c.rules().is_empty());
        let e = parse(r#"{"advice": "smart"}"#).unwrap_err();
        assert!(
            e.reason.contains("unknown advice \"smart\""),
            "{}",
            e.reason
        );
    }

    #[test]
    fn haiku_limit_comes_from_label_unless_set() {
        let c = Config::default();
        let limits: Vec<_> = c.models.iter().map(|r| r.word_limit(8)).collect();
        assert_eq!(limits, vec![None, None, Some(8), None]);
        let mut r = c.models[0].clone();
        r.max_words = Some(3);
        assert_eq!(r.word_limit(8), Some(3));
    }
}

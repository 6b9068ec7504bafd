//! The model recommender of the per-session scope: a linear model over
//! hashed features of the prompt, learned by scripts/train-recommender.py
//! (its weights are compiled in: [`super::advice_weights`]).
//!
//! What it reads: the first [`HEAD_BYTES`] of the prompt (cut at a
//! character), ASCII letters lower-cased, split into words (runs of
//! `a-z`, `0-9` and non-ASCII bytes). Framing words ("quick question",
//! "briefly") are taken out first: they say how to answer, not what is
//! asked, so they move effort (the keyword rule) and never the tier. Then:
//! each word, each pair of words, each run of 3–5 bytes of the words
//! joined by spaces, the first word, each intent verb and the word it acts
//! on, and the prompt's shape (length, code fence, `@path`, pasted error or
//! stack trace, lines, question, confirmation, difficulty and scale words,
//! explicit autonomy, "plan only", non-ASCII text, code punctuation). Each
//! feature is hashed (FNV-1a) into one of [`BUCKETS`]; the buckets hit
//! (each once) add their weights per tier, divided by the square root of
//! their number, plus the tier's bias.
//!
//! The advice: the leading tier, when it is not Sonnet and leads every
//! other tier by its margin (Haiku's margin may be below zero: then Haiku
//! is advised when Sonnet leads it by less than that); Fable only with
//! autonomy (explicit, or work told step by step) *and* scope in the
//! prompt and no "plan only" (otherwise it is out of the running); with
//! explicit autonomy its score is lifted by [`FABLE_LIFT`]: the user's own
//! words for handing the work over are the strongest evidence of it.
//! Anything else is silence: the default model.
//!
//! scripts/advice_features.py is the same computation in Python; a test
//! compares the two on prompts the script recorded. Time and memory are
//! bounded by [`HEAD_BYTES`], whatever the prompt; no allocation grows with
//! it beyond that, and nothing here can panic on any input.

use super::advice_weights::{
    ACK, AUTONOMY, AUTONOMY_START, BIAS, BUCKET_BITS, CONFIRM, DETERMINER, ERROR_MARKERS,
    FABLE_LIFT, FRAMING, FRAMING_START, HARD_WORD, INTENT, LEAD_SKIP, MARGIN, PLAN_ONLY,
    PLAN_START, QUESTION, SCALE, SCALE_WORD, STEPWISE, STEPWISE_START, SYMPTOM, WEIGHTS,
    WORD_FLAGS, YES_NO,
};

/// How many words at the start may be skipped to find a request's verb.
const LEAD_WORDS: usize = 4;

/// How much of the prompt the features read.
pub const HEAD_BYTES: usize = 2048;
pub const BUCKETS: usize = 1 << BUCKET_BITS;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    Haiku = 0,
    Sonnet = 1,
    Opus = 2,
    Fable = 3,
}

impl Tier {
    pub const ALL: [Tier; 4] = [Tier::Haiku, Tier::Sonnet, Tier::Opus, Tier::Fable];

    /// The start of the label of the rules for this tier ("Opus 5.5").
    pub fn name(self) -> &'static str {
        match self {
            Tier::Haiku => "Haiku",
            Tier::Sonnet => "Sonnet",
            Tier::Opus => "Opus",
            Tier::Fable => "Fable",
        }
    }
}

/// What the Fable guard looks at.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Guard {
    /// Explicit autonomy: the user hands the work over for a long run
    /// without them ("overnight", "don't stop", "I'm offline until
    /// Monday", …).
    pub autonomy: bool,
    /// The work is told as a procedure to repeat ("one by one", "for
    /// each", "until green").
    pub stepwise: bool,
    /// It names a scope: scale words ("all", "every", "whole", …) or a number.
    pub scope: bool,
    /// "plan only", "don't execute", …: caps the advice at Opus.
    pub plan_only: bool,
}

impl Guard {
    pub fn allows_fable(self) -> bool {
        (self.autonomy || self.stepwise) && self.scope && !self.plan_only
    }

    /// Whether Fable's score is lifted: the guard is open on explicit
    /// autonomy (work told step by step alone describes ordinary work too).
    pub fn lifts_fable(self) -> bool {
        self.allows_fable() && self.autonomy
    }
}

/// A prompt's scores.
#[derive(Debug, Clone, PartialEq)]
pub struct Scores {
    /// Per tier: the sum of the weights of the buckets hit (weight units).
    pub sums: [i64; 4],
    /// How many distinct buckets were hit.
    pub active: usize,
    /// Per tier: `sums / sqrt(active) + bias`, in weight units, and
    /// Fable's lift when the guard lifts it.
    pub z: [f64; 4],
    pub guard: Guard,
}

impl Scores {
    /// Per tier, in logits.
    pub fn logits(&self) -> [f64; 4] {
        self.z.map(|z| z * SCALE)
    }

    /// Per tier, the model's probability (softmax of the logits).
    pub fn probabilities(&self) -> [f64; 4] {
        let l = self.logits();
        let top = l.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let e = l.map(|x| (x - top).exp());
        let sum: f64 = e.iter().sum();
        e.map(|x| x / sum)
    }

    /// The advice: `None` says nothing about the model (the default).
    pub fn advice(&self) -> Option<Tier> {
        decide(&self.z, self.guard)
    }
}

/// How far `tier` must lead every other tier, in logits, to be advised.
pub fn margin(tier: Tier) -> f64 {
    MARGIN[tier as usize]
}

/// What Fable's score gains, in logits, when the guard lifts it.
pub fn fable_lift() -> f64 {
    FABLE_LIFT * SCALE
}

/// See the module's comment. Ties go to the cheaper tier.
fn decide(z: &[f64; 4], guard: Guard) -> Option<Tier> {
    let candidates: &[Tier] = if guard.allows_fable() {
        &Tier::ALL
    } else {
        &Tier::ALL[..3]
    };
    let mut best = Tier::Haiku;
    for &t in candidates {
        if z[t as usize] > z[best as usize] {
            best = t;
        }
    }
    if best == Tier::Sonnet {
        // A Haiku margin below zero: Haiku when Sonnet leads it by less.
        let haiku = MARGIN[Tier::Haiku as usize];
        let gap = (z[Tier::Haiku as usize] - z[Tier::Sonnet as usize]) * SCALE;
        return (haiku < 0.0 && gap >= haiku).then_some(Tier::Haiku);
    }
    let second = candidates
        .iter()
        .filter(|&&t| t != best)
        .map(|&t| z[t as usize])
        .fold(f64::NEG_INFINITY, f64::max);
    ((z[best as usize] - second) * SCALE >= MARGIN[best as usize]).then_some(best)
}

/// Where a feature came from, for the explanation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// A word (and the letter runs centred in it, and verb features), by
    /// its index among the words kept.
    Word(usize),
    /// Words `i` and `i + 1`.
    Pair(usize),
    Shape(Shape),
    /// The Fable guard lifted Fable (explicit autonomy and a scope).
    FableGuard,
}

/// The prompt's shape, as features.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Length(&'static str),
    LongPaste,
    Fence,
    AtPath,
    Image,
    Error,
    Stack,
    Lines(&'static str),
    QuestionMark,
    QuestionLead,
    Confirm,
    Hard(u8),
    Number,
    Scale(u8),
    Autonomy,
    PlanOnly,
    NonAscii,
    Code,
    /// Acknowledgement words alone ("ok do it", "thanks that works").
    AckOnly,
    /// A short question that asks for a yes or a no ("did it pass?").
    YesNo,
    /// A confirmation word first, and the prompt's length.
    ConfirmLength(&'static str),
    /// A question word first, and the prompt's length.
    QuestionLength(&'static str),
    /// Five words or fewer, none an intent verb.
    NoVerb,
    /// Work named: past a few courtesy words ("please", "ok now"), an
    /// intent verb and a word it acts on ("update the readme").
    Work,
    /// Work named, and the prompt's length.
    WorkLength(&'static str),
    /// How many symptom words ("sometimes", "twice", "vanished"), up to 3.
    Symptom(u8),
}

impl Shape {
    /// The feature's key (after `s:`), as the Python twin names it.
    fn key(self, buf: &mut Vec<u8>) {
        let (name, arg): (&str, Option<&str>) = match self {
            Shape::Length(b) => ("len:", Some(b)),
            Shape::LongPaste => ("long-paste", None),
            Shape::Fence => ("fence", None),
            Shape::AtPath => ("at-path", None),
            Shape::Image => ("image", None),
            Shape::Error => ("error", None),
            Shape::Stack => ("stack", None),
            Shape::Lines(b) => ("lines:", Some(b)),
            Shape::QuestionMark => ("q-end", None),
            Shape::QuestionLead => ("q-lead", None),
            Shape::Confirm => ("confirm", None),
            Shape::Hard(n) => ("hard:", Some(DIGITS[n as usize])),
            Shape::Number => ("number", None),
            Shape::Scale(n) => ("scale:", Some(DIGITS[n as usize])),
            Shape::Autonomy => ("autonomy", None),
            Shape::PlanOnly => ("plan-only", None),
            Shape::NonAscii => ("non-ascii", None),
            Shape::Code => ("code", None),
            Shape::AckOnly => ("ack-only", None),
            Shape::YesNo => ("yes-no", None),
            Shape::ConfirmLength(b) => ("confirm-len:", Some(b)),
            Shape::QuestionLength(b) => ("q-len:", Some(b)),
            Shape::NoVerb => ("no-verb", None),
            Shape::Work => ("work", None),
            Shape::WorkLength(b) => ("work-len:", Some(b)),
            Shape::Symptom(n) => ("symptom:", Some(DIGITS[n as usize])),
        };
        buf.extend_from_slice(name.as_bytes());
        if let Some(a) = arg {
            buf.extend_from_slice(a.as_bytes());
        }
    }

    /// In plain words.
    pub fn describe(self) -> String {
        match self {
            Shape::Length("0") => "no words".into(),
            Shape::Length("1") => "a one-word prompt".into(),
            Shape::Length(b) => format!("a prompt of {b} words"),
            Shape::LongPaste => format!("a prompt over {HEAD_BYTES} bytes"),
            Shape::Fence => "a code fence".into(),
            Shape::AtPath => "an @path mention".into(),
            Shape::Image => "a pasted image".into(),
            Shape::Error => "a pasted error".into(),
            Shape::Stack => "a stack trace".into(),
            Shape::Lines("0") => "a single line".into(),
            Shape::Lines(b) => format!("{b} line breaks"),
            Shape::QuestionMark => "a question mark at the end".into(),
            Shape::QuestionLead => "a question word first".into(),
            Shape::Confirm => "a confirmation word first".into(),
            Shape::Hard(n) => format!("{} difficulty word{}", DIGITS[n as usize], plural(n)),
            Shape::Number => "a number of two digits or more".into(),
            Shape::Scale(n) => format!("{} scale word{}", DIGITS[n as usize], plural(n)),
            Shape::Autonomy => "a request to work on unattended or step by step".into(),
            Shape::PlanOnly => "a request for a plan only".into(),
            Shape::NonAscii => "non-ASCII text".into(),
            Shape::Code => "code punctuation".into(),
            Shape::AckOnly => "a reply of acknowledgement words only".into(),
            Shape::YesNo => "a short yes/no question".into(),
            Shape::ConfirmLength(b) => format!("a confirmation word first, {b} words in all"),
            Shape::QuestionLength(b) => format!("a question word first, {b} words in all"),
            Shape::NoVerb => "a short prompt with no task verb".into(),
            Shape::Work => "a task verb with its object first".into(),
            Shape::WorkLength(b) => format!("a task verb with its object first, {b} words in all"),
            Shape::Symptom(n) => format!("{} symptom word{}", DIGITS[n as usize], plural(n)),
        }
    }
}

/// Words too common to be told to the user as the reason for advice
/// (they still count in the scores).
const NOT_A_REASON: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "do", "for", "i", "in", "is", "it", "its",
    "me", "my", "of", "on", "or", "our", "so", "that", "the", "then", "this", "to", "we", "with",
    "you",
];

impl Origin {
    /// Whether this can be the one reason the hook names: a word (not a
    /// filler word, not a single letter or digit), a pair of words, or a
    /// shape that says something about the task (not the line count, the
    /// script or the punctuation alone).
    fn names_a_reason(self, reading: &Reading<'_>) -> bool {
        match self {
            Origin::Word(k) => {
                let w = reading.word(k);
                w.len() > 1 && !in_sorted(NOT_A_REASON, w)
            }
            Origin::Pair(_) => true,
            Origin::Shape(s) => !matches!(s, Shape::Lines(_) | Shape::NonAscii | Shape::Code),
            Origin::FableGuard => true,
        }
    }
}

fn plural(n: u8) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

const DIGITS: [&str; 4] = ["0", "1", "2", "3"];

const LEN_BUCKETS: [(usize, &str); 11] = [
    (0, "0"),
    (1, "1"),
    (2, "2"),
    (3, "3"),
    (5, "4-5"),
    (8, "6-8"),
    (12, "9-12"),
    (20, "13-20"),
    (35, "21-35"),
    (60, "36-60"),
    (120, "61-120"),
];

fn len_bucket(n: usize) -> &'static str {
    LEN_BUCKETS
        .iter()
        .find(|(top, _)| n <= *top)
        .map_or("121+", |(_, name)| name)
}

/// FNV-1a, 32 bits, fed in pieces.
#[derive(Clone, Copy)]
struct Fnv(u32);

impl Fnv {
    const fn new() -> Fnv {
        Fnv(0x811C_9DC5)
    }
    /// (A `while` loop: a `const fn`, for the tables built at compile time.)
    const fn feed(mut self, bytes: &[u8]) -> Fnv {
        let mut i = 0;
        while i < bytes.len() {
            self.0 ^= bytes[i] as u32;
            self.0 = self.0.wrapping_mul(0x0100_0193);
            i += 1;
        }
        self
    }
}

fn bucket(h: Fnv) -> usize {
    h.0 as usize & (BUCKETS - 1)
}

/// The first [`HEAD_BYTES`] of `prompt`, cut at a character boundary, and
/// whether anything was cut.
fn head(prompt: &str) -> (&str, bool) {
    if prompt.len() <= HEAD_BYTES {
        return (prompt, false);
    }
    let mut end = HEAD_BYTES;
    while !prompt.is_char_boundary(end) {
        end -= 1;
    }
    (&prompt[..end], true)
}

/// `head` without the tags the interactive client wraps each pasted block
/// in before the hooks see the prompt (`<pasted_content id="…">` and
/// `</pasted_content id="…">`, measured on the pinned client): the user
/// typed neither, and what was pasted between them is read as if typed in,
/// as the corpus writes it. Borrowed when there is none.
fn without_paste_tags(head: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let mut out: Option<Vec<u8>> = None;
    let mut from = 0;
    for i in memchr::memchr_iter(b'<', head) {
        if i < from {
            continue;
        }
        if let Some(n) = paste_tag_len(&head[i..]) {
            out.get_or_insert_with(|| Vec::with_capacity(head.len()))
                .extend_from_slice(&head[from..i]);
            from = i + n;
        }
    }
    match out {
        Some(mut out) => {
            out.extend_from_slice(&head[from..]);
            std::borrow::Cow::Owned(out)
        }
        None => std::borrow::Cow::Borrowed(head),
    }
}

/// `text` without the client's paste tags (see [`without_paste_tags`]),
/// for the keyword rules and the word count of the per-session scope.
/// Linear in `text`; borrowed when there is no tag.
pub fn text_without_paste_tags(text: &str) -> std::borrow::Cow<'_, str> {
    match without_paste_tags(text.as_bytes()) {
        std::borrow::Cow::Borrowed(_) => std::borrow::Cow::Borrowed(text),
        // A tag is ASCII from its `<` to its `>`, so what is left is whole
        // characters; lossy only so that nothing here can panic.
        std::borrow::Cow::Owned(v) => std::borrow::Cow::Owned(
            String::from_utf8(v)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        ),
    }
}

/// The length of the paste tag `s` starts with: `<pasted_content>` or
/// `</pasted_content>`, with or without ` id="…"` (at most 32 bytes, no
/// quote, line break or angle bracket) before the `>`.
fn paste_tag_len(s: &[u8]) -> Option<usize> {
    let rest = s.strip_prefix(b"</").or_else(|| s.strip_prefix(b"<"))?;
    let mut rest = rest.strip_prefix(b"pasted_content")?;
    if let Some(r) = rest.strip_prefix(b" id=\"") {
        let end = r.iter().take(33).position(|&c| b"\"\n<>".contains(&c))?;
        if r[end] != b'"' {
            return None;
        }
        rest = &r[end + 1..];
    }
    (rest.first() == Some(&b'>')).then(|| s.len() - rest.len() + 1)
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit() || b >= 0x80
}

/// Whether `needle` occurs in `hay`: each place its first byte occurs,
/// compared there. A `memmem` searcher costs more to build than this
/// search of a head of at most [`HEAD_BYTES`] (for two dozen markers, a
/// tenth of the prompt hook's own work); the cost stays linear in the head
/// times the needle's length, which the lists bound.
fn contains(hay: &[u8], needle: &[u8]) -> bool {
    let Some(&first) = needle.first() else {
        return true;
    };
    memchr::memchr_iter(first, hay).any(|i| hay[i..].starts_with(needle))
}

/// Per byte value, the markers of a list (at most 64) whose byte at `at`
/// it is: built at compile time, for [`contains_marker`].
const fn byte_masks(list: &[&str], at: usize) -> [u64; 256] {
    assert!(list.len() <= 64, "a marker list of at most 64 entries");
    let mut masks = [0u64; 256];
    let mut m = 0;
    while m < list.len() {
        let bytes = list[m].as_bytes();
        assert!(bytes.len() >= 2, "markers of two bytes or more");
        masks[bytes[at] as usize] |= 1 << m;
        m += 1;
    }
    masks
}

const MARKER_FIRST: [u64; 256] = byte_masks(ERROR_MARKERS, 0);
const MARKER_SECOND: [u64; 256] = byte_masks(ERROR_MARKERS, 1);

/// Whether an error marker occurs in `hay`: one pass, and at each place
/// only the markers whose first two bytes are there are compared (the
/// same answer as [`contains`] for each marker, without a pass each).
fn contains_marker(hay: &[u8]) -> bool {
    hay.windows(2).enumerate().any(|(i, two)| {
        let mut mask = MARKER_FIRST[usize::from(two[0])] & MARKER_SECOND[usize::from(two[1])];
        while mask != 0 {
            let m = mask.trailing_zeros() as usize;
            if hay[i..].starts_with(ERROR_MARKERS[m].as_bytes()) {
                return true;
            }
            mask &= mask - 1;
        }
        false
    })
}

/// The bytes of code punctuation, for the `Code` shape, as a table (a
/// `match` here compiled to a jump per byte).
static CODE_PUNCTUATION: [bool; 256] = {
    let mut table = [false; 256];
    let bytes = b"{}();=<>[]";
    let mut i = 0;
    while i < bytes.len() {
        table[bytes[i] as usize] = true;
        i += 1;
    }
    table
};

fn is_code_punctuation(c: u8) -> bool {
    CODE_PUNCTUATION[usize::from(c)]
}

fn in_sorted(list: &[&str], word: &[u8]) -> bool {
    list.binary_search_by(|w| w.as_bytes().cmp(word)).is_ok()
}

/// The prompt, read: its lower-cased head and its words (byte ranges),
/// framing taken out.
struct Reading<'p> {
    head: std::borrow::Cow<'p, [u8]>,
    low: Vec<u8>,
    over: bool,
    words: Vec<(usize, usize)>,
    /// Per word, the lists it is in ([`WORD_FLAGS`]).
    flags: Vec<u16>,
    /// Per word, its [`word_hash`].
    hashes: Vec<Fnv>,
    /// Per word, where it is in [`WORD_FLAGS`] ([`NO_WORD`]: not there).
    entries: Vec<u16>,
}

/// The hash of a word's feature (`w:` and the word): the feature's
/// bucket, and the key of [`FLAG_SLOTS`].
const fn word_hash(word: &[u8]) -> Fnv {
    Fnv::new().feed(b"w:").feed(word)
}

/// How many slots [`FLAG_SLOTS`] has: a power of two, at least twice the
/// words of [`WORD_FLAGS`], so a look-up meets an empty slot soon.
const FLAG_SLOT_COUNT: usize = (WORD_FLAGS.len() * 2).next_power_of_two();
const NO_WORD: u16 = u16::MAX;

/// [`WORD_FLAGS`] as an open-addressed hash table (linear probing) of
/// indices, keyed by [`word_hash`]: built at compile time.
static FLAG_SLOTS: [u16; FLAG_SLOT_COUNT] = flag_slots();

const fn flag_slots() -> [u16; FLAG_SLOT_COUNT] {
    assert!(WORD_FLAGS.len() < NO_WORD as usize);
    let mut slots = [NO_WORD; FLAG_SLOT_COUNT];
    let mut i = 0;
    while i < WORD_FLAGS.len() {
        let mut at = word_hash(WORD_FLAGS[i].0.as_bytes()).0 as usize & (FLAG_SLOT_COUNT - 1);
        while slots[at] != NO_WORD {
            at = (at + 1) & (FLAG_SLOT_COUNT - 1);
        }
        slots[at] = i as u16;
        i += 1;
    }
    slots
}

/// Where a word is in [`WORD_FLAGS`] ([`NO_WORD`]: not there), by its
/// [`word_hash`]: one probe of [`FLAG_SLOTS`], and a comparison where the
/// hash leads.
fn entry_of(word: &[u8], hash: Fnv) -> u16 {
    let mut at = hash.0 as usize & (FLAG_SLOT_COUNT - 1);
    loop {
        let i = FLAG_SLOTS[at];
        if i == NO_WORD || WORD_FLAGS[usize::from(i)].0.as_bytes() == word {
            return i;
        }
        at = (at + 1) & (FLAG_SLOT_COUNT - 1);
    }
}

fn flags_of_entry(entry: u16) -> u16 {
    WORD_FLAGS.get(usize::from(entry)).map_or(0, |&(_, f)| f)
}

/// The lists `word` is in ([`WORD_FLAGS`]).
#[cfg(test)]
fn flags_of(word: &[u8]) -> u16 {
    flags_of_entry(entry_of(word, word_hash(word)))
}

/// A list of phrases (sorted by first word) and, per entry of
/// [`WORD_FLAGS`], the range of those whose first word it is: built at
/// compile time, so finding the phrases that may start at a word costs
/// no search.
struct Phrases {
    list: &'static [&'static [&'static str]],
    ranges: [(u16, u16); WORD_FLAGS.len()],
}

const fn same_str(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl Phrases {
    const fn new(list: &'static [&'static [&'static str]]) -> Phrases {
        assert!(list.len() < u16::MAX as usize);
        let mut ranges = [(0u16, 0u16); WORD_FLAGS.len()];
        let mut j = 0;
        while j < list.len() {
            assert!(!list[j].is_empty(), "an empty phrase");
            let mut i = 0;
            while i < WORD_FLAGS.len() && !same_str(WORD_FLAGS[i].0, list[j][0]) {
                i += 1;
            }
            assert!(
                i < WORD_FLAGS.len(),
                "a phrase's first word is not in WORD_FLAGS"
            );
            if ranges[i].0 == ranges[i].1 {
                ranges[i] = (j as u16, j as u16 + 1);
            } else {
                assert!(
                    ranges[i].1 as usize == j,
                    "phrases not grouped by first word"
                );
                ranges[i].1 += 1;
            }
            j += 1;
        }
        Phrases { list, ranges }
    }

    /// The phrases whose first word is the entry `entry` of [`WORD_FLAGS`].
    fn starting_with(&self, entry: u16) -> &'static [&'static [&'static str]] {
        match self.ranges.get(usize::from(entry)) {
            Some(&(from, to)) => &self.list[usize::from(from)..usize::from(to)],
            None => &[],
        }
    }
}

static FRAMING_PHRASES: Phrases = Phrases::new(FRAMING);
static AUTONOMY_PHRASES: Phrases = Phrases::new(AUTONOMY);
static STEPWISE_PHRASES: Phrases = Phrases::new(STEPWISE);
static PLAN_PHRASES: Phrases = Phrases::new(PLAN_ONLY);

impl<'p> Reading<'p> {
    fn new(prompt: &'p str) -> Reading<'p> {
        let (head, over) = head(prompt);
        let head = without_paste_tags(head.as_bytes());
        let low = head.to_ascii_lowercase();
        let mut words = Vec::new();
        let mut i = 0;
        while i < low.len() {
            if is_word_byte(low[i]) {
                let start = i;
                while i < low.len() && is_word_byte(low[i]) {
                    i += 1;
                }
                words.push((start, i));
            } else {
                i += 1;
            }
        }
        let (hashes, entries): (Vec<Fnv>, Vec<u16>) = (words.iter())
            .map(|&(s, e)| {
                let h = word_hash(&low[s..e]);
                (h, entry_of(&low[s..e], h))
            })
            .unzip();
        let flags = entries.iter().map(|&e| flags_of_entry(e)).collect();
        let mut r = Reading {
            head,
            low,
            over,
            words,
            flags,
            hashes,
            entries,
        };
        // From here on the words are the ones kept: framing moves no feature.
        let kept = r.drop_framing();
        fn pick<T: Copy>(all: &[T], kept: &[usize]) -> Vec<T> {
            kept.iter().map(|&i| all[i]).collect()
        }
        r.words = pick(&r.words, &kept);
        r.flags = pick(&r.flags, &kept);
        r.hashes = pick(&r.hashes, &kept);
        r.entries = pick(&r.entries, &kept);
        r
    }

    fn has_flag(&self, i: usize, flag: u16) -> bool {
        self.flags[i] & flag != 0
    }

    fn word(&self, i: usize) -> &[u8] {
        let (s, e) = self.words[i];
        &self.low[s..e]
    }

    /// The prompt's length in words, for the length features. Chinese and
    /// Japanese are written without spaces, so a sentence is one word
    /// here: each two characters of those scripts in a word (a UTF-8 lead
    /// byte 0xE3 to 0xE9, U+3000 to U+9FFF: kana and CJK ideographs) count
    /// as one more word.
    fn size(&self) -> usize {
        let wide = |i: usize| {
            self.word(i)
                .iter()
                .filter(|c| (0xE3..=0xE9).contains(*c))
                .count()
                / 2
        };
        self.words.len() + (0..self.words.len()).map(wide).sum::<usize>()
    }

    /// Does the phrase start at word `at`?
    fn starts(&self, at: usize, phrase: &[&str]) -> bool {
        phrase.len() <= self.words.len() - at
            && phrase
                .iter()
                .enumerate()
                .all(|(k, w)| self.word(at + k) == w.as_bytes())
    }

    /// The phrases of `phrases` that could start at word `at`: those
    /// whose first word is that word.
    fn starting_here(&self, at: usize, phrases: &Phrases) -> &'static [&'static [&'static str]] {
        phrases.starting_with(self.entries[at])
    }

    fn drop_framing(&self) -> Vec<usize> {
        let mut keep = Vec::with_capacity(self.words.len());
        let mut i = 0;
        while i < self.words.len() {
            // Longest first among those with this first word.
            let phrases = if self.has_flag(i, FRAMING_START) {
                self.starting_here(i, &FRAMING_PHRASES)
            } else {
                &[]
            };
            match phrases.iter().find(|p| self.starts(i, p)) {
                Some(p) => i += p.len(),
                None => {
                    keep.push(i);
                    i += 1;
                }
            }
        }
        keep
    }

    /// Does a phrase of `phrases` occur, starting at a word flagged `start`?
    fn has_phrase(&self, phrases: &Phrases, start: u16) -> bool {
        (0..self.words.len()).any(|i| {
            self.has_flag(i, start)
                && self
                    .starting_here(i, phrases)
                    .iter()
                    .any(|p| self.starts(i, p))
        })
    }

    /// The shapes read from the text itself rather than its words: a code
    /// fence, an `@path`, an image marker, a pasted error or stack trace,
    /// the number of lines, a question mark at the end (in the Python
    /// twin's order).
    fn text_shapes(&self, out: &mut Vec<Shape>) {
        let (head, low) = (&*self.head, self.low.as_slice());
        if contains(head, b"```") {
            out.push(Shape::Fence);
        }
        let at_path = head.iter().enumerate().any(|(i, &c)| {
            c == b'@'
                && (i == 0 || b" \t\n\r(\"'".contains(&head[i - 1]))
                && head
                    .get(i + 1)
                    .is_some_and(|&d| d.is_ascii_alphanumeric() || b"._/~-".contains(&d))
        });
        if at_path {
            out.push(Shape::AtPath);
        }
        if contains(low, b"[image #") {
            out.push(Shape::Image);
        }
        if contains_marker(low) {
            out.push(Shape::Error);
        }
        let trim =
            |l: &[u8]| -> usize { l.iter().take_while(|&&c| c == b' ' || c == b'\t').count() };
        let stack = low.split(|&c| c == b'\n').enumerate().any(|(n, l)| {
            let t = &l[trim(l)..];
            (n > 0 && t.starts_with(b"at ") && (l.contains(&b'(') || l.contains(&b':')))
                || t.starts_with(b"file \"")
        });
        if stack {
            out.push(Shape::Stack);
        }
        let nl = memchr::memchr_iter(b'\n', low).count();
        out.push(Shape::Lines(match nl {
            0 => "0",
            1..=2 => "1-2",
            3..=9 => "3-9",
            _ => "10+",
        }));
        let end = low
            .iter()
            .rposition(|c| !b" \t\r\n".contains(c))
            .map_or(0, |i| i + 1);
        if low[..end].ends_with(b"?") {
            out.push(Shape::QuestionMark);
        }
    }

    fn shapes(&self) -> (Vec<Shape>, Guard) {
        let head = &*self.head;
        let size = self.size();
        let mut out = vec![Shape::Length(len_bucket(size))];
        if self.over {
            out.push(Shape::LongPaste);
        }
        self.text_shapes(&mut out);
        let first = self.flags.first().copied().unwrap_or(0);
        if first & QUESTION != 0 {
            out.push(Shape::QuestionLead);
        }
        if first & CONFIRM != 0 {
            out.push(Shape::Confirm);
        }
        let count = |flag: u16| self.flags.iter().filter(|&&f| f & flag != 0).count();
        let hard = count(HARD_WORD);
        if hard > 0 {
            out.push(Shape::Hard(hard.min(3) as u8));
        }
        let scale = count(SCALE_WORD);
        let number = (0..self.words.len()).any(|i| {
            let w = self.word(i);
            w.len() >= 2 && w.iter().all(u8::is_ascii_digit)
        });
        if number {
            out.push(Shape::Number);
        }
        if scale > 0 {
            out.push(Shape::Scale(scale.min(3) as u8));
        }
        let autonomy = self.has_phrase(&AUTONOMY_PHRASES, AUTONOMY_START);
        let stepwise = self.has_phrase(&STEPWISE_PHRASES, STEPWISE_START);
        if autonomy || stepwise {
            out.push(Shape::Autonomy);
        }
        let plan_only = self.has_phrase(&PLAN_PHRASES, PLAN_START);
        if plan_only {
            out.push(Shape::PlanOnly);
        }
        if head.iter().any(|&c| c >= 0x80) {
            out.push(Shape::NonAscii);
        }
        if head.iter().filter(|&&c| is_code_punctuation(c)).count() >= 6 {
            out.push(Shape::Code);
        }
        // Short follow-ups (the Python twin says why).
        let n = self.words.len();
        if n > 0 && self.flags.iter().all(|&f| f & ACK != 0) {
            out.push(Shape::AckOnly);
        }
        if first & YES_NO != 0 && size <= 12 {
            out.push(Shape::YesNo);
        }
        if first & CONFIRM != 0 {
            out.push(Shape::ConfirmLength(len_bucket(size)));
        }
        if first & QUESTION != 0 {
            out.push(Shape::QuestionLength(len_bucket(size)));
        }
        if (1..=5).contains(&size) && count(INTENT) == 0 {
            out.push(Shape::NoVerb);
        }
        // Work named (the Python twin says why).
        let lead = (0..n.min(LEAD_WORDS))
            .find(|&i| !self.has_flag(i, LEAD_SKIP))
            .unwrap_or(n.min(LEAD_WORDS));
        if lead < n && self.has_flag(lead, INTENT) {
            let object = (lead + 1..n).find(|&j| !self.has_flag(j, DETERMINER));
            if object.is_some() {
                out.push(Shape::Work);
                out.push(Shape::WorkLength(len_bucket(size)));
            }
        }
        let symptom = count(SYMPTOM);
        if symptom > 0 {
            out.push(Shape::Symptom(symptom.min(3) as u8));
        }
        let guard = Guard {
            autonomy,
            stepwise,
            scope: scale > 0 || number,
            plan_only,
        };
        (out, guard)
    }

    /// Every feature, in the Python twin's order, as (bucket, origin).
    fn features(&self, sink: &mut impl Sink) -> Guard {
        let mut emit = |b: usize, o: Origin| sink.emit(b, o);
        let n = self.words.len();
        for (k, &h) in self.hashes.iter().enumerate() {
            emit(bucket(h), Origin::Word(k));
        }
        for k in 0..n.saturating_sub(1) {
            let h = Fnv::new()
                .feed(b"b:")
                .feed(self.word(k))
                .feed(b" ")
                .feed(self.word(k + 1));
            emit(bucket(h), Origin::Pair(k));
        }
        // Byte runs of " w0 w1 … ", each credited to the word its middle
        // byte falls in (a space: the word after it).
        let mut text = Vec::with_capacity(self.head.len() + 2);
        // A word's index fits a u16: a head has at most HEAD_BYTES words.
        const _: () = assert!(HEAD_BYTES <= u16::MAX as usize);
        let mut owner: Vec<u16> = Vec::with_capacity(self.head.len() + 2);
        for k in 0..n {
            text.push(b' ');
            owner.push(k as u16);
            text.extend_from_slice(self.word(k));
            owner.extend(std::iter::repeat_n(k as u16, self.word(k).len()));
        }
        text.push(b' ');
        owner.push(n.saturating_sub(1) as u16);
        // The runs of 3, 4 and 5 bytes that start at a place share their
        // first bytes: the runs of 3 are hashed once, and the longer ones
        // go on from those hashes (all of one length emitted before the next).
        let c = Fnv::new().feed(b"c:");
        let h3: Vec<Fnv> = text.windows(3).map(|w| c.feed(w)).collect();
        let from = |k: usize| owner.get(k..).unwrap_or_default();
        let after = |k: usize| text.get(k..).unwrap_or_default();
        for (&h, &o) in h3.iter().zip(from(1)) {
            emit(bucket(h), Origin::Word(usize::from(o)));
        }
        for ((&h, &b), &o) in h3.iter().zip(after(3)).zip(from(2)) {
            emit(bucket(h.feed(&[b])), Origin::Word(usize::from(o)));
        }
        for (((&h, &b), &b2), &o) in h3.iter().zip(after(3)).zip(after(4)).zip(from(2)) {
            emit(bucket(h.feed(&[b, b2])), Origin::Word(usize::from(o)));
        }
        if n > 0 {
            emit(
                bucket(Fnv::new().feed(b"l:").feed(self.word(0))),
                Origin::Word(0),
            );
        }
        for k in 0..n {
            let w = self.word(k);
            if !self.has_flag(k, INTENT) {
                continue;
            }
            emit(bucket(Fnv::new().feed(b"v:").feed(w)), Origin::Word(k));
            let mut j = k + 1;
            while j < n && self.has_flag(j, DETERMINER) {
                j += 1;
            }
            if j < n {
                let h = Fnv::new().feed(b"o:").feed(w).feed(b" ").feed(self.word(j));
                emit(bucket(h), Origin::Word(k));
            }
        }
        let (shapes, guard) = self.shapes();
        let mut key = Vec::with_capacity(16);
        for s in shapes {
            key.clear();
            key.extend_from_slice(b"s:");
            s.key(&mut key);
            emit(bucket(Fnv::new().feed(&key)), Origin::Shape(s));
        }
        guard
    }
}

/// Where [`Reading::features`] sends each feature.
trait Sink {
    fn emit(&mut self, bucket: usize, origin: Origin);
}

impl<F: FnMut(usize, Origin)> Sink for F {
    fn emit(&mut self, bucket: usize, origin: Origin) {
        self(bucket, origin)
    }
}

/// Which buckets are hit, each once.
struct Hits([u64; BUCKETS / 64]);

impl Hits {
    /// Marks `b`; true when it was not marked before.
    fn first(&mut self, b: usize) -> bool {
        let (word, bit) = (b / 64, 1u64 << (b % 64));
        let new = self.0[word] & bit == 0;
        self.0[word] |= bit;
        new
    }
}

fn finish(sums: [i64; 4], active: usize, guard: Guard) -> Scores {
    let root = if active == 0 {
        1.0
    } else {
        (active as f64).sqrt()
    };
    let mut z = [0.0; 4];
    for t in 0..4 {
        z[t] = sums[t] as f64 / root + BIAS[t];
    }
    if guard.lifts_fable() {
        z[Tier::Fable as usize] += FABLE_LIFT;
    }
    Scores {
        sums,
        active,
        z,
        guard,
    }
}

/// The prompt's scores alone (the tests; the hook calls [`advise`]).
#[cfg(test)]
pub fn score(prompt: &str) -> Scores {
    let reading = Reading::new(prompt);
    let mut hits = Hits([0; BUCKETS / 64]);
    let mut sums = [0i64; 4];
    let mut active = 0;
    let guard = reading.features(&mut |b, _| {
        if hits.first(b) {
            active += 1;
            for (s, w) in sums.iter_mut().zip(WEIGHTS[b]) {
                *s += i64::from(w);
            }
        }
    });
    finish(sums, active, guard)
}

/// One thing the model saw, and what it added to each tier (logits).
#[derive(Debug, Clone, PartialEq)]
pub struct Contribution {
    pub origin: Origin,
    /// In plain words: `the word "deadlock"`, `a pasted error`.
    pub what: String,
    pub logits: [f64; 4],
}

impl Contribution {
    /// How much this pushes `tier` over Sonnet (the default).
    pub fn toward(&self, tier: Tier) -> f64 {
        self.logits[tier as usize] - self.logits[Tier::Sonnet as usize]
    }
}

/// The most characters of a word an explanation quotes.
const WORD_CHARS: usize = 40;

fn quoted(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    format!("'{}'", crate::text::one_line(&text, WORD_CHARS))
}

/// The prompt's scores, with what each word, pair of words and shape
/// contributed (letter runs and verb features go to their word).
pub fn explain(prompt: &str) -> (Scores, Vec<Contribution>) {
    let reading = Reading::new(prompt);
    let (scores, found) = contributions(&reading);
    let contributions = found
        .iter()
        .map(|(origin, logits)| Contribution {
            origin,
            what: describe(origin, &reading),
            logits,
        })
        .collect();
    (scores, contributions)
}

/// What `origin` is, in plain words.
fn describe(origin: Origin, reading: &Reading<'_>) -> String {
    match origin {
        Origin::Word(k) => format!("the word {}", quoted(reading.word(k))),
        Origin::Pair(k) => {
            let mut pair = reading.word(k).to_vec();
            pair.push(b' ');
            pair.extend_from_slice(reading.word(k + 1));
            format!("the words {}", quoted(&pair))
        }
        Origin::Shape(s) => s.describe(),
        Origin::FableGuard => "work handed over unattended, with a scope".into(),
    }
}

/// The scores, and per word, pair of words and shape what it added to
/// each tier (logits); nothing put into words yet.
fn contributions(reading: &Reading<'_>) -> (Scores, Found) {
    let n = reading.words.len();
    let mut tally = Tally {
        hits: Hits([0; BUCKETS / 64]),
        words: n,
        active: 0,
        parts: vec![None; 2 * n],
        shapes: Vec::new(),
        queue: [(0, 0); QUEUE],
        queued: 0,
    };
    let guard = reading.features(&mut tally);
    tally.drain();
    let Tally {
        active,
        parts,
        shapes,
        ..
    } = tally;
    // The sums are those of the parts: each bucket hit went to one part.
    let mut sums = [0i64; 4];
    let all = parts.iter().flatten().chain(shapes.iter().map(|(_, w)| w));
    for w in all {
        for (s, &w) in sums.iter_mut().zip(w) {
            *s += i64::from(w);
        }
    }
    let scores = finish(sums, active, guard);
    let root = if active == 0 {
        1.0
    } else {
        (active as f64).sqrt()
    };
    let found = Found {
        parts,
        words: n,
        shapes,
        root,
        lift: guard.lifts_fable(),
    };
    (scores, found)
}

/// What each word, pair of words and shape added, read on demand (a
/// long prompt has hundreds; the hook reads them once, to name one).
struct Found {
    parts: Vec<Option<[i32; 4]>>,
    words: usize,
    shapes: Vec<(Shape, [i32; 4])>,
    root: f64,
    /// Whether the Fable guard lifted Fable.
    lift: bool,
}

impl Found {
    /// Each word, pair of words and shape that added anything (words,
    /// then pairs, then shapes, then the Fable guard's lift), and what it
    /// added to each tier, in logits.
    fn iter(&self) -> impl Iterator<Item = (Origin, [f64; 4])> + '_ {
        let (words, pairs) = self.parts.split_at(self.words);
        let root = self.root;
        (words.iter().enumerate())
            .filter_map(|(k, w)| w.map(|w| (Origin::Word(k), w)))
            .chain((pairs.iter().enumerate()).filter_map(|(k, w)| w.map(|w| (Origin::Pair(k), w))))
            .chain(self.shapes.iter().map(|&(s, w)| (Origin::Shape(s), w)))
            .map(move |(origin, w)| (origin, w.map(|w| f64::from(w) / root * SCALE)))
            .chain(
                self.lift
                    .then_some((Origin::FableGuard, [0.0, 0.0, 0.0, fable_lift()])),
            )
    }
}

/// How many buckets [`Tally`] holds between asking for a bucket's
/// weights and adding them.
const QUEUE: usize = 16;

/// What each word, pair of words and shape added, bucket by bucket: the
/// one [`Sink`] of the hook, so it is inlined in the features' loops. A
/// part's sum fits an `i32`: at most [`BUCKETS`] weights of an `i16`.
///
/// The weights (256 KiB) are mostly not in the cache when a hook starts,
/// and a long prompt hits thousands of buckets. So a bucket's weights are
/// asked for (prefetched) when it is first hit and added [`QUEUE`] buckets
/// later, when they have arrived, rather than waited for one at a time.
struct Tally {
    hits: Hits,
    /// How many words: the parts are the words, then the pairs.
    words: usize,
    active: usize,
    parts: Vec<Option<[i32; 4]>>,
    shapes: Vec<(Shape, [i32; 4])>,
    /// (bucket, part) of the last buckets hit first, by `queued` modulo
    /// [`QUEUE`].
    queue: [(u32, u32); QUEUE],
    queued: usize,
}

impl Tally {
    fn add(&mut self, (b, part): (u32, u32)) {
        let acc = self.parts[part as usize].get_or_insert([0; 4]);
        for (a, w) in acc.iter_mut().zip(WEIGHTS[b as usize]) {
            *a += i32::from(w);
        }
    }

    /// Adds what is still queued.
    fn drain(&mut self) {
        let from = self.queued.saturating_sub(QUEUE);
        for k in from..self.queued {
            self.add(self.queue[k % QUEUE]);
        }
        self.queued = from;
    }
}

/// Asks for `weights` to be brought into the cache, without waiting.
#[inline(always)]
fn prefetch(weights: &[i16; 4]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch reads nothing and cannot fault; it is a hint.
        // SSE is in every x86_64 target's baseline.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(weights.as_ptr().cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = weights;
}

impl Sink for Tally {
    #[inline(always)]
    fn emit(&mut self, b: usize, origin: Origin) {
        if !self.hits.first(b) {
            return;
        }
        self.active += 1;
        let part = match origin {
            Origin::Word(k) => k,
            Origin::Pair(k) => self.words + k,
            Origin::Shape(s) => {
                self.shapes.push((s, WEIGHTS[b].map(i32::from)));
                return;
            }
            // Not a feature: the explanation's name for Fable's lift.
            Origin::FableGuard => return,
        };
        prefetch(&WEIGHTS[b]);
        let at = self.queued % QUEUE;
        if self.queued >= QUEUE {
            self.add(self.queue[at]);
        }
        // Both below 2^32: a bucket is below BUCKETS, a part below twice
        // the words of a head of HEAD_BYTES.
        self.queue[at] = (b as u32, part as u32);
        self.queued += 1;
    }
}

/// The recommender's advice for a prompt, and its strongest reason.
#[derive(Debug, Clone, PartialEq)]
pub struct Advice {
    pub tier: Tier,
    /// The contribution that pushed hardest toward `tier` over Sonnet, in
    /// plain words.
    pub reason: String,
}

/// The advice, or `None` to say nothing about the model. One reading and
/// one pass over the features; only the reason named is put into words.
pub fn advise(prompt: &str) -> Option<Advice> {
    let reading = Reading::new(prompt);
    let (scores, found) = contributions(&reading);
    let tier = scores.advice()?;
    let toward = |l: &[f64; 4]| l[tier as usize] - l[Tier::Sonnet as usize];
    // Only a sign that pushed toward the advice is named: the one that
    // pushed hardest among those worth naming, else among all (on a
    // prompt of a mark or two only its shape speaks), else none of them
    // did alone. One pass keeps both; of equals the last is kept, and
    // whether a sign is worth naming is asked only of one that would be.
    let mut named: Option<(f64, Origin)> = None;
    let mut any: Option<(f64, Origin)> = None;
    let beats = |t: f64, best: Option<(f64, Origin)>| {
        best.is_none_or(|(b, _)| t.total_cmp(&b) != std::cmp::Ordering::Less)
    };
    for (origin, l) in found.iter() {
        let t = toward(&l);
        if t <= 0.0 || t.is_nan() {
            continue;
        }
        if beats(t, any) {
            any = Some((t, origin));
        }
        if beats(t, named) && origin.names_a_reason(&reading) {
            named = Some((t, origin));
        }
    }
    let reason = named.or(any).map_or_else(
        || "no one sign: the prompt as a whole".to_string(),
        |(_, origin)| describe(origin, &reading),
    );
    Some(Advice { tier, reason })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sign the hook names pushed toward the advice: on a prompt of a
    /// mark or two, "a question mark at the end" or "no words" pushed
    /// toward Sonnet and was named all the same, as the least against.
    #[test]
    fn the_sign_named_pushed_toward_the_advice() {
        let prompts = [
            "?",
            "",
            "!",
            "...",
            "[check]",
            "thanks",
            "ok do it",
            "continue",
            "what does ^(a|b)+$ match?",
            "fix the typo in the README",
            "design the schema for multi-tenant billing with usage-based pricing",
        ];
        let mut advised = 0;
        for p in prompts {
            let Some(a) = advise(p) else { continue };
            advised += 1;
            let reading = Reading::new(p);
            let (_, found) = contributions(&reading);
            let toward = |l: &[f64; 4]| l[a.tier as usize] - l[Tier::Sonnet as usize];
            assert!(
                found
                    .iter()
                    .any(|(o, l)| describe(o, &reading) == a.reason && toward(&l) > 0.0),
                "{p:?}: {}",
                a.reason
            );
        }
        assert!(advised >= 8, "{advised}");
        assert_eq!(advise("?").unwrap().reason, "a single line");
    }

    fn shapes_of(p: &str) -> Vec<Shape> {
        Reading::new(p).shapes().0
    }

    fn kept(p: &str) -> Vec<String> {
        let r = Reading::new(p);
        (0..r.words.len())
            .map(|k| String::from_utf8_lossy(r.word(k)).into_owned())
            .collect()
    }

    #[test]
    fn fnv_matches_the_published_vectors() {
        assert_eq!(Fnv::new().feed(b"").0, 0x811c_9dc5);
        assert_eq!(Fnv::new().feed(b"a").0, 0xe40c_292c);
        assert_eq!(Fnv::new().feed(b"foobar").0, 0xbf9c_f968);
        assert_eq!(Fnv::new().feed(b"foo").feed(b"bar").0, 0xbf9c_f968);
    }

    #[test]
    fn words_are_ascii_lowered_runs_and_non_ascii_stays_in_them() {
        assert_eq!(
            kept("Fix the_Bug in café-Code, don't!"),
            ["fix", "the", "bug", "in", "café", "code", "don", "t"]
        );
        assert!(kept("  ,.;  ").is_empty());
    }

    #[test]
    fn framing_is_taken_out_of_the_words() {
        assert_eq!(
            kept("Quick question: why does it deadlock? briefly"),
            ["why", "does", "it", "deadlock"]
        );
        assert_eq!(kept("a quick fix"), ["a", "quick", "fix"]);
        // Framing changes neither the tier scores nor the advice.
        let framed = score("quick question: why does the worker pool deadlock under load?");
        let plain = score("why does the worker pool deadlock under load?");
        assert_eq!(framed.z, plain.z);
    }

    #[test]
    fn the_head_is_cut_at_a_character() {
        let p = "é".repeat(HEAD_BYTES);
        let (h, over) = head(&p);
        assert!(over && h.len() == HEAD_BYTES && h.chars().all(|c| c == 'é'));
        let p = format!("x{}", "é".repeat(HEAD_BYTES));
        let (h, _) = head(&p);
        assert_eq!(h.len(), HEAD_BYTES - 1);
        assert_eq!(head("short"), ("short", false));
        assert!(shapes_of(&p).contains(&Shape::LongPaste));
    }

    #[test]
    fn length_buckets() {
        assert_eq!(shapes_of("")[0], Shape::Length("0"));
        assert_eq!(shapes_of("ok")[0], Shape::Length("1"));
        assert_eq!(shapes_of("a b c d")[0], Shape::Length("4-5"));
        assert_eq!(shapes_of(&"w ".repeat(200))[0], Shape::Length("121+"));
    }

    #[test]
    fn code_fence_at_path_image_error_and_stack() {
        assert!(shapes_of("see ```let x = 1;```").contains(&Shape::Fence));
        assert!(!shapes_of("see `x`").contains(&Shape::Fence));
        assert!(shapes_of("look at @src/main.rs").contains(&Shape::AtPath));
        assert!(shapes_of("@README.md typo").contains(&Shape::AtPath));
        assert!(!shapes_of("mail me at a@b.com").contains(&Shape::AtPath));
        assert!(!shapes_of("the @ sign").contains(&Shape::AtPath));
        assert!(shapes_of("[Image #1] why is this red").contains(&Shape::Image));
        assert!(shapes_of("got TypeError: x is undefined").contains(&Shape::Error));
        assert!(shapes_of("thread 'main' panicked at src/x.rs").contains(&Shape::Error));
        assert!(!shapes_of("no problem here").contains(&Shape::Error));
        let js = "boom\n    at run (app.js:3:1)\n    at main (app.js:9:2)";
        assert!(shapes_of(js).contains(&Shape::Stack));
        let py = "Traceback (most recent call last):\n  File \"x.py\", line 3";
        assert!(shapes_of(py).contains(&Shape::Stack));
        assert!(!shapes_of("look at this").contains(&Shape::Stack));
        assert!(!shapes_of("at home (today)").contains(&Shape::Stack));
    }

    #[test]
    fn lines_question_and_confirmation() {
        assert!(shapes_of("a\nb\nc\nd").contains(&Shape::Lines("3-9")));
        assert!(shapes_of("one line").contains(&Shape::Lines("0")));
        assert!(shapes_of("is it safe? \n").contains(&Shape::QuestionMark));
        assert!(shapes_of("Why is it slow").contains(&Shape::QuestionLead));
        assert!(!shapes_of("fix why-it-fails?").contains(&Shape::QuestionLead));
        assert!(shapes_of("OK go ahead").contains(&Shape::Confirm));
        assert!(!shapes_of("so ok, now rewrite it").contains(&Shape::Confirm));
    }

    #[test]
    fn difficulty_scale_number_and_the_fable_guard() {
        let s = shapes_of("find the race and the deadlock");
        assert!(s.contains(&Shape::Hard(2)));
        assert!(shapes_of("race race race race").contains(&Shape::Hard(3)));
        assert!(shapes_of("fix all 140 tests").contains(&Shape::Number));
        assert!(!shapes_of("fix test 7").contains(&Shape::Number));
        let (_, g) = Reading::new("migrate every service overnight").shapes();
        assert_eq!(
            g,
            Guard {
                autonomy: true,
                stepwise: false,
                scope: true,
                plan_only: false
            }
        );
        assert!(g.allows_fable() && g.lifts_fable());
        let (_, g) =
            Reading::new("plan only, don't execute: migrate every service overnight").shapes();
        assert!(g.plan_only && !g.allows_fable());
        let (_, g) = Reading::new("keep going").shapes();
        assert!(g.stepwise && !g.autonomy && !g.scope && !g.allows_fable());
        // Work told step by step opens the guard, and lifts nothing.
        let (s, g) = Reading::new("fix all 40 failing tests one by one").shapes();
        assert!(g.stepwise && !g.autonomy && g.allows_fable() && !g.lifts_fable());
        assert!(s.contains(&Shape::Autonomy));
    }

    #[test]
    fn short_follow_ups_have_shapes_of_their_own() {
        assert!(shapes_of("ok do it").contains(&Shape::AckOnly));
        assert!(shapes_of("Yes please, go ahead!").contains(&Shape::AckOnly));
        assert!(shapes_of("thanks that works").contains(&Shape::AckOnly));
        assert!(!shapes_of("thanks, now commit").contains(&Shape::AckOnly));
        assert!(!shapes_of("").contains(&Shape::AckOnly));
        assert!(shapes_of("did the tests pass?").contains(&Shape::YesNo));
        assert!(shapes_of("is it done").contains(&Shape::YesNo));
        assert!(!shapes_of("why is it slow?").contains(&Shape::YesNo));
        let long =
            "does the scheduler ever run two jobs for the same tenant at once when a worker dies";
        assert!(!shapes_of(long).contains(&Shape::YesNo));
        assert!(shapes_of("yes").contains(&Shape::ConfirmLength("1")));
        let s = shapes_of("yes and also move the retry settings into the config file");
        assert!(s.contains(&Shape::ConfirmLength("9-12")));
        assert!(shapes_of("what does this do?").contains(&Shape::QuestionLength("4-5")));
        assert!(shapes_of("which branch").contains(&Shape::NoVerb));
        assert!(!shapes_of("fix the typo").contains(&Shape::NoVerb));
        assert!(!shapes_of("").contains(&Shape::NoVerb));
        assert!(!shapes_of("one two three four five six").contains(&Shape::NoVerb));
    }

    #[test]
    fn work_named_is_a_verb_with_its_object_past_courtesy_words() {
        let work = |p: &str| shapes_of(p).contains(&Shape::Work);
        assert!(work("update the readme"));
        assert!(work("ok now, please sort the table by date"));
        assert!(shapes_of("update the readme").contains(&Shape::WorkLength("3")));
        // No object: the verb acts on "it" alone.
        assert!(!work("delete it"));
        assert!(!work("ok do it"));
        // The verb is not first: a question, an acknowledgement, a symptom.
        assert!(!work("why does the update fail"));
        assert!(!work("thanks"));
        assert!(!work("the readme needs an update"));
        // Only four courtesy words are skipped.
        assert!(!work("ok ok ok ok ok update the readme"));
        assert!(!work(""));
    }

    #[test]
    fn symptom_words_are_counted_up_to_three() {
        assert!(shapes_of("some orders show up twice").contains(&Shape::Symptom(1)));
        let p = "the total is sometimes wrong and rows go missing, twice a week";
        assert!(shapes_of(p).contains(&Shape::Symptom(3)));
        assert!(!shapes_of("add a dark mode")
            .iter()
            .any(|s| matches!(s, Shape::Symptom(_))));
    }

    #[test]
    fn non_ascii_and_code_punctuation() {
        assert!(shapes_of("warum geht das nicht, müll").contains(&Shape::NonAscii));
        assert!(!shapes_of("plain").contains(&Shape::NonAscii));
        assert!(shapes_of("if (a[i] == b) { f(); }").contains(&Shape::Code));
        assert!(!shapes_of("f(x)").contains(&Shape::Code));
    }

    #[test]
    fn intent_verbs_and_their_objects_are_features() {
        let r = Reading::new("please fix the typo");
        let mut origins = Vec::new();
        r.features(&mut |b, o| origins.push((b, o)));
        let v = bucket(Fnv::new().feed(b"v:fix"));
        let o = bucket(Fnv::new().feed(b"o:fix typo"));
        assert!(origins.contains(&(v, Origin::Word(1))));
        assert!(origins.contains(&(o, Origin::Word(1))));
    }

    #[test]
    fn a_sentence_written_without_spaces_is_as_long_as_its_characters_say() {
        // Twenty ideographs and a full-width question mark: one token, ten
        // more words; the same in kana and kanji; Korean is spaced already.
        let zh = "为什么这个函数在多线程下会返回错误的结果？";
        assert_eq!(Reading::new(zh).size(), 11);
        assert_eq!(
            Reading::new("このテストが失敗する理由を説明して").size(),
            1 + 8
        );
        assert_eq!(Reading::new("테스트가 왜 실패하나요").size(), 3);
        assert_eq!(Reading::new("why does the pool deadlock").size(), 5);
        // So the length features read it as a question of 9-12 words, not
        // a one-word reply.
        let (shapes, _) = Reading::new(zh).shapes();
        assert!(shapes.contains(&Shape::Length("9-12")), "{shapes:?}");
    }

    #[test]
    fn a_paste_is_read_as_the_text_pasted_not_the_clients_tags_around_it() {
        // The prompt hook gets a paste in the TUI wrapped in tags (measured
        // on the pinned client, tests/e2e_claude.rs): they weigh nothing,
        // and no reason names them; what was pasted counts as typed.
        let typed = "why does the parser fail here? \n\n\n  at parse (parser.rs:3:1)\n  at run (main.rs:9:2)\n\n\n fix it";
        let pasted = "why does the parser fail here? \n\n<pasted_content id=\"b459\">\n  at parse (parser.rs:3:1)\n  at run (main.rs:9:2)\n</pasted_content id=\"b459\">\n\n fix it";
        assert_eq!(score(pasted).z, score(typed).z);
        let (_, reasons) = explain(pasted);
        assert!(reasons
            .iter()
            .all(|c| !c.what.contains("pasted_content") && !c.what.contains("b459")));
        assert!(shapes_of(pasted).contains(&Shape::Stack));
        assert!(!shapes_of(pasted).contains(&Shape::Code));
        // Only the client's tag shape goes: other text in angle brackets,
        // or a tag that is not one, stays.
        assert_eq!(
            &*without_paste_tags(b"<pasted_content>x</pasted_content>"),
            b"x"
        );
        for kept in [
            "<pasted_contents>",
            "<pasted_content id=\"a\nb\">",
            "<pasted_content id=\"b459\"",
            "<b>bold</b>",
        ] {
            assert_eq!(&*without_paste_tags(kept.as_bytes()), kept.as_bytes());
        }
        let long = format!("<pasted_content id=\"{}\">", "a".repeat(33));
        assert_eq!(&*without_paste_tags(long.as_bytes()), long.as_bytes());
    }

    #[test]
    fn the_fable_guard_and_the_margins_decide() {
        // Fable leads but the guard is closed: the next tier decides.
        let closed = Guard::default();
        let open = Guard {
            autonomy: true,
            stepwise: false,
            scope: true,
            plan_only: false,
        };
        let big = 1e6;
        assert_eq!(decide(&[0.0, 0.0, big / 2.0, big], open), Some(Tier::Fable));
        assert_eq!(
            decide(&[0.0, 0.0, big / 2.0, big], closed),
            Some(Tier::Opus)
        );
        assert_eq!(decide(&[0.0, big, 0.0, 0.0], open), None);
        // Ties go to the cheaper tier: Haiku over Sonnet, then its margin.
        let tie = decide(&[1.0, 1.0, 0.0, 0.0], closed);
        assert!(tie.is_none() || MARGIN[0] <= 0.0);
        // Sonnet leads Haiku by a hair (a millionth of a logit): Haiku only
        // when Haiku's margin is below zero; by more than the margin, never.
        let hair = 1e-6 / SCALE;
        let close = decide(&[0.0, hair, -big, -big], closed);
        assert_eq!(close, (MARGIN[0] < 0.0).then_some(Tier::Haiku));
        let far = (MARGIN[0].abs() + 1.0) / SCALE;
        assert_eq!(decide(&[0.0, far, -big, -big], closed), None);
    }

    #[test]
    fn fables_lift_is_added_only_on_explicit_autonomy_with_a_scope() {
        let open = Guard {
            autonomy: true,
            stepwise: false,
            scope: true,
            plan_only: false,
        };
        let sums = [100, -40, 7, 3];
        let closed = finish(sums, 9, Guard::default());
        let lifted = finish(sums, 9, open);
        assert_eq!(lifted.z[..3], closed.z[..3]);
        assert_eq!(lifted.z[3], closed.z[3] + FABLE_LIFT);
        assert!(fable_lift() > 0.0);
        let steps = Guard {
            autonomy: false,
            stepwise: true,
            ..open
        };
        assert!(steps.allows_fable());
        for g in [
            Guard {
                plan_only: true,
                ..open
            },
            Guard {
                scope: false,
                ..open
            },
            steps,
        ] {
            assert_eq!(finish(sums, 9, g).z, closed.z);
        }
        // The explanation lists it with the rest, and only then.
        let (_, with) = explain("I'm off till Monday: fix every failing test, one commit each");
        assert!(with
            .iter()
            .any(|c| c.origin == Origin::FableGuard && c.logits == [0.0, 0.0, 0.0, fable_lift()]));
        for p in [
            "plan only: fix every failing test overnight",
            "fix every failing test one by one",
        ] {
            let (_, without) = explain(p);
            assert!(without.iter().all(|c| c.origin != Origin::FableGuard));
        }
    }

    #[test]
    fn being_away_for_a_long_while_is_explicit_autonomy() {
        for p in [
            "I'm offline until Monday",
            "i'm off till monday",
            "while i'm gone",
            "I'll check back tonight",
            "I'm going on vacation for a week",
            "you have the whole weekend",
            "run everything, fix everything, ping me when it's deployed",
            "don't wait for me, go through the backlog",
            // In the languages the corpus has most after English (only
            // ASCII is lower-cased: "Rückfragen" matches, "RÜCKFRAGEN"
            // would not).
            "me voy a dormir. revisa todos los issues",
            "alle 18 Services umstellen, ohne Rückfragen",
            "corrige tous les tests sans me demander",
            "vou dormir, migra todos os serviços",
        ] {
            assert!(Reading::new(p).shapes().1.autonomy, "{p}");
        }
        for p in [
            "make the app work offline",
            "turn it off until it passes",
            "for each endpoint add a test",
        ] {
            assert!(!Reading::new(p).shapes().1.autonomy, "{p}");
        }
    }

    #[test]
    fn the_phrase_lists_are_sorted_by_first_word() {
        for list in [FRAMING, AUTONOMY, STEPWISE, PLAN_ONLY] {
            assert!(list.iter().all(|p| !p.is_empty()));
            assert!(list
                .windows(2)
                .all(|w| w[0][0].as_bytes() <= w[1][0].as_bytes()));
        }
        // Framing: the longest first among the same first word.
        assert!(FRAMING
            .windows(2)
            .all(|w| w[0][0] != w[1][0] || w[0].len() >= w[1].len()));
    }

    #[test]
    fn a_single_letter_or_a_filler_word_is_never_the_reason_named() {
        let r = Reading::new("briefly, what does set -e do? the x");
        let word = |w: &str| {
            (0..r.words.len())
                .find(|&k| r.word(k) == w.as_bytes())
                .unwrap()
        };
        assert!(!Origin::Word(word("e")).names_a_reason(&r));
        assert!(!Origin::Word(word("x")).names_a_reason(&r));
        assert!(!Origin::Word(word("the")).names_a_reason(&r));
        assert!(Origin::Word(word("set")).names_a_reason(&r));
        assert!(Origin::Pair(word("e")).names_a_reason(&r));
    }

    #[test]
    fn the_word_lists_are_sorted_for_binary_search() {
        assert!(NOT_A_REASON
            .windows(2)
            .all(|w| w[0].as_bytes() < w[1].as_bytes()));
        assert!(WORD_FLAGS
            .windows(2)
            .all(|w| w[0].0.as_bytes() < w[1].0.as_bytes()));
        assert!(WORD_FLAGS.iter().all(|(_, f)| *f != 0));
        // Each phrase's first word is flagged as such.
        for (list, flag) in [
            (FRAMING, FRAMING_START),
            (AUTONOMY, AUTONOMY_START),
            (STEPWISE, STEPWISE_START),
            (PLAN_ONLY, PLAN_START),
        ] {
            assert!(list.iter().all(|p| flags_of(p[0].as_bytes()) & flag != 0));
        }
        assert_eq!(flags_of(b"deadlock"), HARD_WORD);
        // "all night": the first word of an autonomy phrase as well.
        assert_eq!(
            flags_of(b"all"),
            DETERMINER | SCALE_WORD | ACK | AUTONOMY_START
        );
        assert_eq!(flags_of(b"did"), YES_NO);
        assert_eq!(flags_of(b"zebra"), 0);
    }

    #[test]
    fn hostile_prompts_are_bounded() {
        for p in [
            "a".repeat(1 << 20),
            "é".repeat(1 << 19),
            "\n".repeat(1 << 20),
            "@".repeat(1 << 20),
            "don t stop ".repeat(100_000),
            "\u{0}\u{202e}\u{85}x".repeat(50_000),
        ] {
            let s = score(&p);
            assert!(s.active > 0 && s.z.iter().all(|z| z.is_finite()));
            let (e, c) = explain(&p);
            assert_eq!(e, s);
            assert!(c.len() <= HEAD_BYTES + 32);
            for x in &c {
                assert!(crate::text::is_clean(&x.what), "{:?}", x.what);
                assert!(x.what.chars().count() <= WORD_CHARS + 20);
            }
            let _ = advise(&p);
        }
    }

    /// Prompts of every length up to past the head: the fixture's, the
    /// held-out fifth of the corpus, and texts of unrelated corpus
    /// prompts joined until they pass [`HEAD_BYTES`] (no repeats, so
    /// thousands of distinct buckets).
    fn prompts_of_every_length() -> Vec<String> {
        let fixture: Vec<serde_json::Value> =
            serde_json::from_str(include_str!("../../tests/fixtures/advice_scores.json")).unwrap();
        let mut out: Vec<String> = (fixture.iter())
            .map(|c| c["prompt"].as_str().unwrap().to_string())
            .collect();
        let held: Vec<String> = held_out().into_iter().map(|(p, _)| p).collect();
        let mut long = String::new();
        for p in &held {
            long.push_str(p);
            long.push('\n');
            if long.len() > HEAD_BYTES + 200 {
                out.push(std::mem::take(&mut long));
            }
        }
        out.extend(held);
        out
    }

    /// The hook's tally (the weights asked for ahead, added later, the
    /// sums taken from the parts) gives the plain sum's scores, and names
    /// the reason the plain reading of the contributions names: the
    /// strongest push toward the advice among the signs worth naming,
    /// else among all, the last of equals.
    #[test]
    fn the_hooks_tally_is_the_plain_sum() {
        let prompts = prompts_of_every_length();
        let long = prompts.iter().filter(|p| p.len() > HEAD_BYTES).count();
        assert!(long >= 20, "{long}");
        let mut named = 0;
        for p in &prompts {
            let (scores, found) = explain(p);
            assert_eq!(scores, score(p), "{p:?}");
            let Some(tier) = scores.advice() else {
                assert_eq!(advise(p), None);
                continue;
            };
            let toward = |c: &&Contribution| c.toward(tier);
            let reading = Reading::new(p);
            let strongest = |nameable: bool| {
                (found.iter())
                    .filter(|c| toward(c) > 0.0 && (!nameable || c.origin.names_a_reason(&reading)))
                    .max_by(|a, b| toward(a).total_cmp(&toward(b)))
            };
            let want = strongest(true)
                .or_else(|| strongest(false))
                .map_or("no one sign: the prompt as a whole", |c| c.what.as_str());
            assert_eq!(advise(p).unwrap().reason, want, "{p:?}");
            named += 1;
        }
        assert!(named >= 100, "{named}");
    }

    /// The one-pass marker search finds what a search per marker finds.
    #[test]
    fn the_error_markers_are_found_as_one_by_one() {
        let mut texts = vec![String::new(), "e".into(), "er".into(), "errorerror".into()];
        for m in ERROR_MARKERS {
            for (before, after) in [("", ""), ("x", ""), ("", "x"), ("see ", " here")] {
                texts.push(format!("{before}{m}{after}"));
                // Cut short by a byte, or with its second byte changed.
                texts.push(format!("{before}{}{after}", &m[..m.len() - 1]));
                let mut near = m.as_bytes().to_vec();
                near[1] = near[1].wrapping_add(1);
                texts.push(format!("{before}{}{after}", String::from_utf8_lossy(&near)));
            }
        }
        for p in prompts_of_every_length() {
            texts.push(p.to_ascii_lowercase());
        }
        let mut found = 0;
        for t in &texts {
            let want = ERROR_MARKERS
                .iter()
                .any(|m| contains(t.as_bytes(), m.as_bytes()));
            assert_eq!(contains_marker(t.as_bytes()), want, "{t:?}");
            found += usize::from(want);
        }
        assert!(found >= 4 * ERROR_MARKERS.len(), "{found}");
    }

    /// Each word of the lists is found with its flags; a word not there
    /// has none; the phrases that may start at a word are those a search
    /// of the sorted list finds.
    #[test]
    fn the_word_table_and_the_phrase_ranges_are_the_lists() {
        for &(w, flags) in WORD_FLAGS {
            assert_eq!(flags_of(w.as_bytes()), flags, "{w}");
        }
        for w in ["zebra", "", "tha", "thee", "the1", "é"] {
            let want = WORD_FLAGS
                .iter()
                .find(|(x, _)| *x == w)
                .map_or(0, |&(_, f)| f);
            assert_eq!(flags_of(w.as_bytes()), want, "{w}");
        }
        for (phrases, list) in [
            (&FRAMING_PHRASES, FRAMING),
            (&AUTONOMY_PHRASES, AUTONOMY),
            (&STEPWISE_PHRASES, STEPWISE),
            (&PLAN_PHRASES, PLAN_ONLY),
        ] {
            let mut seen = 0;
            for (entry, &(w, _)) in WORD_FLAGS.iter().enumerate() {
                let want: Vec<_> = list.iter().filter(|p| p[0] == w).collect();
                let got: Vec<_> = phrases.starting_with(entry as u16).iter().collect();
                assert_eq!(got, want, "{w}");
                seen += got.len();
            }
            assert_eq!(seen, list.len());
            assert!(phrases.starting_with(NO_WORD).is_empty());
        }
    }

    #[test]
    fn code_punctuation_is_the_ten_bytes() {
        for c in 0..=255u8 {
            assert_eq!(is_code_punctuation(c), b"{}();=<>[]".contains(&c), "{c}");
        }
    }

    /// The scores scripts/train-recommender.py recorded with the weights
    /// it wrote: the Rust features must be the Python ones exactly.
    #[test]
    fn scores_equal_the_training_scripts() {
        let fixture: Vec<serde_json::Value> =
            serde_json::from_str(include_str!("../../tests/fixtures/advice_scores.json")).unwrap();
        assert!(fixture.len() >= 20);
        for case in &fixture {
            let p = case["prompt"].as_str().unwrap();
            let s = score(p);
            let sums: Vec<i64> = serde_json::from_value(case["sums"].clone()).unwrap();
            assert_eq!(s.sums.to_vec(), sums, "{p:?}");
            assert_eq!(s.active as u64, case["active"].as_u64().unwrap(), "{p:?}");
            for t in 0..4 {
                let want = case["z"][t].as_f64().unwrap();
                assert!((s.z[t] - want).abs() <= 1e-9 * want.abs().max(1.0), "{p:?}");
            }
            let want = case["advice"].as_str().map(str::to_string);
            let got = s.advice().map(|t| t.name().to_ascii_lowercase());
            assert_eq!(got, want, "{p:?}");
        }
    }

    /// A corpus line's tier (`model`).
    fn labelled_tier(v: &serde_json::Value) -> Tier {
        match v["model"].as_str().unwrap() {
            "haiku" => Tier::Haiku,
            "sonnet" => Tier::Sonnet,
            "opus" => Tier::Opus,
            _ => Tier::Fable,
        }
    }

    /// The corpus prompts the training never saw (the fixed fifth chosen
    /// by a hash of the text, as in the script), scored by this code.
    fn held_out() -> Vec<(String, Tier)> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for file in [
            include_str!("../../data/advice/starter.jsonl"),
            include_str!("../../data/advice/corpus.jsonl"),
        ] {
            for line in file.lines().filter(|l| !l.trim().is_empty()) {
                let v: serde_json::Value = serde_json::from_str(line).unwrap();
                let p = v["prompt"].as_str().unwrap().to_string();
                if !seen.insert(p.clone()) {
                    continue;
                }
                if !Fnv::new()
                    .feed(b"split:")
                    .feed(p.as_bytes())
                    .0
                    .is_multiple_of(5)
                {
                    continue;
                }
                out.push((p, labelled_tier(&v)));
            }
        }
        out
    }

    /// The floor under the held-out figures (silence counts as Sonnet, the
    /// default model): a change to the features, the weights or the
    /// decision that loses agreement, or advises too high more often, fails
    /// here. The figures themselves: scripts/eval-recommender.py.
    #[test]
    fn held_out_agreement_stays_above_its_floor() {
        let rows = held_out();
        assert!(rows.len() >= 300, "{}", rows.len());
        let (mut agree, mut high, mut low, mut sonnet) = (0, 0, 0, 0);
        for (p, want) in &rows {
            let got = score(p).advice().unwrap_or(Tier::Sonnet);
            agree += usize::from(got == *want);
            high += usize::from(got as u8 > *want as u8);
            low += usize::from((got as u8) < *want as u8);
            sonnet += usize::from(*want == Tier::Sonnet);
        }
        let pct = |n: usize| n as f64 * 100.0 / rows.len() as f64;
        let figures = format!(
            "{} prompts: agree {:.1} %, too high {:.1} %, too low {:.1} %, always Sonnet {:.1} %",
            rows.len(),
            pct(agree),
            pct(high),
            pct(low),
            pct(sonnet)
        );
        assert!(pct(agree) >= HELD_OUT_FLOOR, "{figures}");
        assert!(pct(high) <= HELD_OUT_TOO_HIGH, "{figures}");
        assert!(pct(agree) >= pct(sonnet) + 15.0, "{figures}");
    }

    /// A few points under the figures measured when the weights were last
    /// trained (docs/maintainers/recommender.md).
    const HELD_OUT_FLOOR: f64 = 85.0;
    const HELD_OUT_TOO_HIGH: f64 = 7.0;

    /// The floor under the prompts written in real prompts' shapes
    /// (data/advice/tried/styled.jsonl, never trained on): as hard for the
    /// model as real prompts (68 % against 89 % on the split), so a
    /// retraining that does better on the written corpus and worse on what
    /// people type fails here rather than unseen.
    #[test]
    fn prompts_in_real_shapes_stay_above_their_floor() {
        let trained: std::collections::HashSet<String> =
            include_str!("../../data/advice/corpus.jsonl")
                .lines()
                .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
                .filter_map(|v| v["prompt"].as_str().map(str::to_string))
                .collect();
        let (mut n, mut agree, mut high, mut sonnet) = (0, 0, 0, 0);
        for line in include_str!("../../data/advice/tried/styled.jsonl").lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let p = v["prompt"].as_str().unwrap();
            assert!(
                !trained.contains(p),
                "a prompt of tried/styled.jsonl is in the corpus: score only its held-out fifth here"
            );
            let want = labelled_tier(&v);
            let got = score(p).advice().unwrap_or(Tier::Sonnet);
            n += 1;
            agree += usize::from(got == want);
            high += usize::from(got as u8 > want as u8);
            sonnet += usize::from(want == Tier::Sonnet);
        }
        let pct = |k: usize| k as f64 * 100.0 / n as f64;
        let figures = format!(
            "{n} prompts: agree {:.1} %, too high {:.1} %, always Sonnet {:.1} %",
            pct(agree),
            pct(high),
            pct(sonnet)
        );
        assert!(n >= 3000, "{figures}");
        assert!(pct(agree) >= REAL_SHAPES_FLOOR, "{figures}");
        assert!(pct(high) <= REAL_SHAPES_TOO_HIGH, "{figures}");
        assert!(pct(agree) >= pct(sonnet) + 6.0, "{figures}");
    }

    /// Under the figures of the committed model (68.0 % agree, 7.3 % too
    /// high; always Sonnet 58.4 %).
    const REAL_SHAPES_FLOOR: f64 = 65.0;
    const REAL_SHAPES_TOO_HIGH: f64 = 9.0;
}

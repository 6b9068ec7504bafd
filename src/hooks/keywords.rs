//! Every keyword of the rules, found in one pass over the prompt.
//!
//! The v5 gatekeeper asks, for each keyword in turn, whether
//! `(?<![a-z0-9])keyword(?![a-z0-9])` matches the lower-cased prompt. Asked
//! keyword by keyword that costs the prompt's length times the keyword's
//! (a keyword of 1,000 `a`s against a megabyte of `a`s is 10⁹ steps, on
//! every prompt). [`KeywordSet`] answers the same question for all keywords
//! at once, in time linear in the prompt plus the keywords, whatever either
//! holds.
//!
//! It is an Aho–Corasick automaton whose failure links know the word
//! boundary. A keyword may only start where the byte before it is not an
//! ASCII lower-case letter or digit (or at the start), so the automaton
//! tracks only the longest *eligible* suffix of the text read so far that
//! is a prefix of some keyword; its failure link is the next shorter
//! eligible one, and "none" (⊥) when the last byte read was a letter or digit
//! and no keyword prefix started at an eligible place. A keyword is found
//! when its node is on the current chain and the next byte (or the end of
//! the text) is not a letter or digit. Each keyword needs reporting once, so
//! a report cuts the output links it has walked: no link is walked twice.
//!
//! Why not the `aho-corasick` crate: it reports every occurrence of every
//! keyword and would leave the boundary check to each occurrence, so nested
//! keywords (`-`, `--`, `---`, …) against a prompt of dashes still cost the
//! prompt times the keywords. Why not a `regex::RegexSet`: compiling one on
//! every prompt costs more than the whole hook may take.
//!
//! The bytes are the lower-cased prompt's UTF-8: the byte before a match is
//! the last byte of the character before it, and any byte of a non-ASCII
//! character is ≥ 0x80, never a letter or digit, exactly as the regex sees
//! the character itself. A keyword is valid UTF-8 and so only ever matches
//! at character boundaries.

/// The most work [`find_all`] does keyword by keyword: the places a
/// keyword may start times the keywords' total length. A prompt of a
/// hundred words against the built-in lists is inside it.
const DIRECT_WORK: usize = 1 << 16;

/// For each of `keywords`, in order: does it occur in `text` with no
/// `[a-z0-9]` byte right before or right after it ([`KeywordSet::find`]'s
/// answer). A short text is answered keyword by keyword at each place a
/// keyword may start, which for the prompt hook's few words costs a small
/// part of building the automaton (that build was an eighth of the hook's
/// instructions); past [`DIRECT_WORK`] the automaton answers, in time
/// linear in the text plus the keywords, whatever either holds.
pub fn find_all(keywords: &[&str], text: &str) -> Vec<bool> {
    let t = text.as_bytes();
    let bytes: usize = keywords.iter().map(|k| k.len().max(1)).sum();
    // The places are collected only up to the bound: a long text goes to
    // the automaton without a list of its places (8 bytes each).
    let most = DIRECT_WORK / bytes.max(1);
    let starts: Vec<usize> = (0..=t.len())
        .filter(|&s| s == 0 || !is_word_byte(t[s - 1]))
        .take(most + 1)
        .collect();
    if starts.len() > most {
        return KeywordSet::new(keywords.iter().copied()).find(text);
    }
    keywords
        .iter()
        .map(|k| {
            let k = k.as_bytes();
            let first = k.first().copied();
            starts.iter().any(|&s| {
                // The first byte alone turns most places away.
                (first.is_none() || t.get(s).copied() == first)
                    && t[s..].starts_with(k)
                    && t.get(s + k.len()).is_none_or(|&b| !is_word_byte(b))
            })
        })
        .collect()
}

/// No node: an absent child, the end of a failure or output chain, or the
/// state ⊥ (nothing may start here).
const NONE: u32 = u32::MAX;
const ROOT: u32 = 0;

/// The bytes that make a word boundary fail: `[a-z0-9]`.
fn is_word_byte(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

#[derive(Debug, Clone)]
struct Node {
    /// Children form a list sorted by byte (the root has a table instead).
    first_child: u32,
    next_sibling: u32,
    byte: u8,
    /// The longest proper suffix that is a node and starts at an eligible
    /// place (the byte before it is not a word byte); [`NONE`] for ⊥.
    fail: u32,
    /// The nearest node on the failure chain that ends a keyword.
    out: u32,
    ends_keyword: bool,
}

/// A compiled set of keywords; [`KeywordSet::find`] says which occur.
#[derive(Debug, Clone)]
pub struct KeywordSet {
    nodes: Vec<Node>,
    root_children: Box<[u32; 256]>,
    /// The node of each keyword, in the order given (duplicates share one).
    keyword_node: Vec<u32>,
}

impl KeywordSet {
    /// Compile `keywords`; keyword `i` of the iteration is `i` in
    /// [`KeywordSet::find`]'s answer. Time and memory are linear in the
    /// keywords' total length.
    pub fn new<'a>(keywords: impl IntoIterator<Item = &'a str>) -> KeywordSet {
        let mut set = KeywordSet {
            nodes: vec![Node {
                first_child: NONE,
                next_sibling: NONE,
                byte: 0,
                fail: NONE,
                out: NONE,
                ends_keyword: false,
            }],
            root_children: Box::new([NONE; 256]),
            keyword_node: Vec::new(),
        };
        for keyword in keywords {
            let mut node = ROOT;
            for &b in keyword.as_bytes() {
                node = set.child_or_insert(node, b);
            }
            set.nodes[node as usize].ends_keyword = true;
            set.keyword_node.push(node);
        }
        set.link();
        set
    }

    fn child(&self, node: u32, b: u8) -> u32 {
        if node == ROOT {
            return self.root_children[b as usize];
        }
        let mut c = self.nodes[node as usize].first_child;
        while c != NONE {
            let n = &self.nodes[c as usize];
            if n.byte == b {
                return c;
            }
            if n.byte > b {
                return NONE;
            }
            c = n.next_sibling;
        }
        NONE
    }

    fn child_or_insert(&mut self, node: u32, b: u8) -> u32 {
        let found = self.child(node, b);
        if found != NONE {
            return found;
        }
        let new = u32::try_from(self.nodes.len()).expect("fewer than 4 billion keyword bytes");
        self.nodes.push(Node {
            first_child: NONE,
            next_sibling: NONE,
            byte: b,
            fail: NONE,
            out: NONE,
            ends_keyword: false,
        });
        if node == ROOT {
            self.root_children[b as usize] = new;
            return new;
        }
        // Keep the sibling list sorted by byte.
        let mut prev = NONE;
        let mut c = self.nodes[node as usize].first_child;
        while c != NONE && self.nodes[c as usize].byte < b {
            prev = c;
            c = self.nodes[c as usize].next_sibling;
        }
        self.nodes[new as usize].next_sibling = c;
        if prev == NONE {
            self.nodes[node as usize].first_child = new;
        } else {
            self.nodes[prev as usize].next_sibling = new;
        }
        new
    }

    /// The first child of `node` ([`NONE`] for none): the others follow by
    /// `next_sibling`, in byte order.
    fn first_child(&self, node: u32) -> u32 {
        if node == ROOT {
            return self
                .root_children
                .iter()
                .copied()
                .find(|&c| c != NONE)
                .unwrap_or(NONE);
        }
        self.nodes[node as usize].first_child
    }

    /// The child after `child` of `node`, in byte order.
    fn next_child(&self, node: u32, child: u32) -> u32 {
        if node == ROOT {
            let b = self.nodes[child as usize].byte as usize;
            return self.root_children[b + 1..]
                .iter()
                .copied()
                .find(|&c| c != NONE)
                .unwrap_or(NONE);
        }
        self.nodes[child as usize].next_sibling
    }

    /// The state after reading byte `b` in state `state` (a node or ⊥):
    /// the longest eligible suffix that is a node, via the failure chain
    /// (`links` counts the failure links followed).
    fn step(&self, mut state: u32, b: u8, links: &mut usize) -> u32 {
        while state != NONE {
            let next = self.child(state, b);
            if next != NONE {
                return next;
            }
            *links += 1;
            state = self.nodes[state as usize].fail;
        }
        // Nothing continues: the empty suffix is eligible after a non-word byte.
        if is_word_byte(b) {
            NONE
        } else {
            ROOT
        }
    }

    /// Failure and output links, breadth first (a node's links only depend
    /// on shallower nodes).
    fn link(&mut self) {
        // The queue: every node but the root enters once, so a vector read
        // from the front (no allocation per node: this runs on every prompt).
        let mut queue = Vec::with_capacity(self.nodes.len());
        let mut c = self.first_child(ROOT);
        while c != NONE {
            let b = self.nodes[c as usize].byte;
            self.nodes[c as usize].fail = if is_word_byte(b) { NONE } else { ROOT };
            queue.push(c);
            c = self.next_child(ROOT, c);
        }
        let mut at = 0;
        while let Some(&u) = queue.get(at) {
            at += 1;
            let mut v = self.first_child(u);
            while v != NONE {
                let b = self.nodes[v as usize].byte;
                let fail = self.step(self.nodes[u as usize].fail, b, &mut 0);
                let out = match fail {
                    NONE => NONE,
                    f if self.nodes[f as usize].ends_keyword => f,
                    f => self.nodes[f as usize].out,
                };
                let node = &mut self.nodes[v as usize];
                node.fail = fail;
                node.out = out;
                queue.push(v);
                v = self.next_child(u, v);
            }
        }
        // The root is eligible only where its own state says so; its failure is ⊥.
        self.nodes[ROOT as usize].fail = NONE;
    }

    /// For each keyword (in the order given to [`KeywordSet::new`]): does it
    /// occur in `text` with no `[a-z0-9]` byte right before or right after
    /// it? One pass over `text`; each keyword is reported at most once.
    pub fn find(&self, text: &str) -> Vec<bool> {
        let (hits, _) = self.search(text);
        self.keyword_node
            .iter()
            .map(|&n| hits[n as usize])
            .collect()
    }

    /// The hit flag of every node, and how many links were followed (the
    /// work beyond one step per byte; tests hold it to the sizes).
    fn search(&self, text: &str) -> (Vec<bool>, usize) {
        let mut hits = vec![false; self.nodes.len()];
        let mut out: Vec<u32> = self.nodes.iter().map(|n| n.out).collect();
        let mut links = 0usize;
        let mut state = ROOT;
        for &b in text.as_bytes() {
            if !is_word_byte(b) {
                self.report(state, &mut hits, &mut out, &mut links);
            }
            state = self.step(state, b, &mut links);
        }
        self.report(state, &mut hits, &mut out, &mut links);
        (hits, links)
    }

    /// Mark every keyword on `state`'s chain found (the text has a boundary
    /// right here). The output links walked are cut: everything behind them
    /// is found now, so a later report stops where this one passed.
    fn report(&self, state: u32, hits: &mut [bool], out: &mut [u32], links: &mut usize) {
        if state == NONE {
            return;
        }
        if self.nodes[state as usize].ends_keyword {
            hits[state as usize] = true;
        }
        let mut v = std::mem::replace(&mut out[state as usize], NONE);
        while v != NONE {
            *links += 1;
            hits[v as usize] = true;
            v = std::mem::replace(&mut out[v as usize], NONE);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The v5 rule, keyword by keyword, tried at every occurrence: the
    /// definition [`KeywordSet`] must agree with (quadratic; tests only).
    fn naive(keyword: &str, text: &str) -> bool {
        let t = text.as_bytes();
        let k = keyword.as_bytes();
        (0..=t.len().saturating_sub(k.len()))
            .filter(|&s| t.len() >= k.len() && &t[s..s + k.len()] == k)
            .any(|s| {
                (s == 0 || !is_word_byte(t[s - 1]))
                    && (s + k.len() == t.len() || !is_word_byte(t[s + k.len()]))
            })
    }

    fn check(keywords: &[&str], text: &str) {
        let got = KeywordSet::new(keywords.iter().copied()).find(text);
        let want: Vec<bool> = keywords.iter().map(|k| naive(k, text)).collect();
        assert_eq!(got, want, "keywords {keywords:?} in {text:?}");
        assert_eq!(
            find_all(keywords, text),
            want,
            "keywords {keywords:?} in {text:?}, direct"
        );
    }

    #[test]
    fn boundaries_are_ascii_letters_and_digits_only() {
        for (k, text, found) in [
            ("ttl", "ttl", true),
            ("ttl", "a ttl-file", true),
            ("ttl", "ttl_file", true),
            ("ttl", "caféttl", true),
            ("ttl", "ttlé", true),
            ("ttl", "settle", false),
            ("ttl", "ttl2", false),
            ("no", "i know", false),
            ("ok", "look", false),
            ("ok", "x look ok", true),
            ("end to end", "xend to end to end", true),
            ("-x", "a-x", false),
            ("-x", " -x", true),
            ("x-", "x-a", false),
            ("x-", "x-.", true),
            ("é", "caféx", false),
            ("é", "cafe é.", true),
        ] {
            assert_eq!(
                KeywordSet::new([k]).find(text),
                vec![found],
                "{k:?} in {text:?}"
            );
            assert_eq!(naive(k, text), found, "oracle: {k:?} in {text:?}");
        }
    }

    #[test]
    fn many_keywords_agree_with_the_one_by_one_rule() {
        let keywords = [
            "a",
            "aa",
            "ab",
            "b a",
            "a-",
            "-a",
            "-",
            "--",
            "ba",
            "a a",
            "é",
            "éa",
            "1",
            "a1",
            "quick",
            "in short",
            "in",
            "short",
            "no",
            "ok",
            "okay",
            "review all",
            "all",
        ];
        // Every text of up to 5 symbols over a small alphabet, plus a few longer.
        let alphabet = ["a", "b", " ", "-", "1", "é"];
        let mut texts = vec![String::new()];
        let mut frontier = vec![String::new()];
        for _ in 0..5 {
            let mut next = Vec::new();
            for t in &frontier {
                for a in alphabet {
                    next.push(format!("{t}{a}"));
                }
            }
            texts.extend(next.iter().cloned());
            frontier = next;
        }
        texts.push("okay, in short: review all, quick".into());
        texts.push("nokay inshort -a- a-a --- aa1 a1a".into());
        for t in &texts {
            check(&keywords, t);
        }
    }

    #[test]
    fn duplicates_and_prefixes_share_nodes_and_answer_per_keyword() {
        let set = KeywordSet::new(["quick", "in short", "quick", "in"]);
        assert_eq!(set.find("be quick"), vec![true, false, true, false]);
        assert_eq!(set.find("in shorts"), vec![false, false, false, true]);
        assert_eq!(
            KeywordSet::new(std::iter::empty()).find("x"),
            Vec::<bool>::new()
        );
    }

    #[test]
    fn work_is_linear_in_the_text_whatever_the_keywords() {
        // The cases that were quadratic keyword by keyword: one long keyword
        // of the same letter as the text, and nested keywords of a non-word
        // byte against a text of that byte (every place a boundary).
        let n = 200_000;
        let long = "a".repeat(1_000);
        let nested: Vec<String> = (1..=300).map(|i| "-".repeat(i)).collect();
        for (keywords, text) in [
            (vec![long.as_str()], "a".repeat(n)),
            (nested.iter().map(String::as_str).collect(), "-".repeat(n)),
            (vec![long.as_str(), "a a"], "a ".repeat(n / 2)),
        ] {
            let set = KeywordSet::new(keywords.iter().copied());
            let (_, links) = set.search(&text);
            assert!(
                links <= 2 * text.len() + set.nodes.len(),
                "{links} links for {} bytes and {} nodes",
                text.len(),
                set.nodes.len()
            );
        }
        let set = KeywordSet::new(nested.iter().map(String::as_str));
        assert!(set.find(&"-".repeat(1_000)).iter().all(|f| *f));
        assert_eq!(
            KeywordSet::new([long.as_str()]).find(&"a".repeat(n)),
            vec![false]
        );
        assert_eq!(KeywordSet::new([long.as_str()]).find(&long), vec![true]);
        // The keyword-by-keyword answer stops at its bound: against 200,000
        // dashes the 300 nested keywords would be 10^10 byte comparisons.
        let nested: Vec<&str> = nested.iter().map(String::as_str).collect();
        assert!(find_all(&nested, &"-".repeat(n)).iter().all(|f| *f));
        assert_eq!(find_all(&[long.as_str()], &"a".repeat(n)), vec![false]);
    }

    #[test]
    fn an_empty_keyword_is_found_at_a_boundary_both_ways() {
        for text in ["", "a", " ", "ab", "a b", "-"] {
            check(&["", "a"], text);
        }
    }
}

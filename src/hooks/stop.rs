//! `gk hook stop` (Stop): the v5 state monitor. At the end of every turn it
//! shows the user the task state from task_state.json, so they know before
//! typing whether switching model or effort is safe. It prints
//! `systemMessage` only: anything else on Stop would make Claude go on.

//! The words of the Stop line are the composer's
//! (`super::voice::stop_message`, `super::voice::age_text`); what is here
//! holds them to v5's age buckets.

#[cfg(test)]
mod tests {
    use super::super::voice::age_text;

    #[test]
    fn age_buckets() {
        let cases = [
            (None, "no valid timestamp"),
            (Some(-1.0), "timestamp in the future"),
            (Some(0.0), "just now"),
            (Some(89.9), "just now"),
            (Some(90.0), "1m ago"),
            (Some(3599.0), "59m ago"),
            (Some(3600.0), "1h ago"),
            (Some(47.9 * 3600.0), "47h ago"),
            (Some(48.0 * 3600.0), "2d ago"),
            (Some(73.0 * 3600.0), "3d ago"),
        ];
        for (age, want) in cases {
            assert_eq!(age_text(age), want, "{age:?}");
        }
    }
}

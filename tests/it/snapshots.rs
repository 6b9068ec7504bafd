//! What a person or Claude reads, whole: reviewed snapshot files in
//! `tests/it/snapshots/`. A change to a message shows up as a snapshot
//! diff (`cargo insta review`, or `INSTA_UPDATE=always` then `git diff`).

use crate::common::{snapshot_settings, TestEnv};

#[test]
fn rules_lists_the_default_table() {
    let env = TestEnv::new();
    let out = env.gk(["rules"]).run().ok();
    snapshot_settings(&env).bind(|| insta::assert_snapshot!("rules", out));
}

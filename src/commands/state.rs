//! `gk state`: the task records listed, cleaned, pruned or set by hand,
//! every change through the one plan → diff → confirm → write path. The
//! records themselves, and the plans, are [`crate::records`]'.

use crate::change::apply::{execute, Outcome};
use crate::change::render::Style;
use crate::cli::{ColorChoice, StateAction, StateArgs};
use crate::console::{out, outln, Console};
use crate::env::Env;
use crate::error::{Error, Result};
use crate::records::*;

pub fn run(args: &StateArgs, color: ColorChoice, env: &Env, c: &mut Console<'_>) -> Result<u8> {
    let p = Places::from_env(env)?;
    let records = || list(&p);
    let ((plan, notes), change) = match &args.action {
        None => {
            let records = records()?;
            let text = if args.json {
                let text = serde_json::to_string_pretty(&json(&p, &records))
                    .map_err(|e| Error::new(format!("could not format the records: {e}")))?;
                // A record's text may hold C1 controls, U+2028 and the like,
                // which serde_json leaves raw.
                format!("{}\n", crate::text::json_escaped(&text))
            } else {
                table(&p, &records)
            };
            out!(c, "{text}");
            return Ok(0);
        }
        Some(StateAction::Clean {
            session,
            all,
            shared,
            change,
        }) => (
            plan_clean(&p, &records()?, session.as_deref(), *all, *shared)?,
            change,
        ),
        Some(StateAction::Prune { days, change }) => (plan_prune(&records()?, *days)?, change),
        Some(StateAction::Set {
            status,
            task,
            detail,
            project,
            session,
            change,
        }) => {
            let cwd = env
                .current_dir()
                .map(|d| d.display().to_string())
                .unwrap_or_default();
            (
                (
                    plan_set(
                        &p,
                        *status,
                        task.as_deref().unwrap_or_default(),
                        detail.as_deref().unwrap_or_default(),
                        project.as_deref().unwrap_or_default(),
                        session.as_deref(),
                        &cwd,
                    )?,
                    Vec::new(),
                ),
                change,
            )
        }
    };
    for note in &notes {
        // A note names a file in a folder Claude writes.
        outln!(c, "{}", crate::text::escaped(note));
    }
    let outcome = execute(
        &plan,
        &super::options(change),
        Style::for_stdout(color.forced(), env),
        env,
        c,
    )?;
    // `set` asks for one record's content: one written again since the
    // plan (kept, as every record is) means it was not set.
    if let (Some(StateAction::Set { .. }), Outcome::Written { skipped, .. }) =
        (&args.action, &outcome)
    {
        if let Some(path) = skipped.first() {
            return Err(Error::new(format!(
                "{}: not set, the record changed since the plan was made; run the command again",
                crate::change::render::shown_path(path)
            )));
        }
    }
    Ok(outcome.exit_code())
}

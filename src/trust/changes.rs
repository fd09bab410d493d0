//! What changed since a file was last allowed, in words a person can act
//! on ("/srv/ops/tool.sh changed since you allowed it"), and what an
//! allowance would cover, for the refusal and the confirmation.

use super::cover::{Content, Cover, Covered, Role};

/// Since a file was allowed, in a sentence.
pub(crate) const SINCE_ALLOWED: &str = "since you allowed it";
/// While the confirmation was open, in a sentence.
pub(crate) const WHILE_ASKED: &str = "while you were asked";

/// Each difference between what was allowed or shown (`before`) and what
/// would run now (`now`), one sentence each, saying `when` it happened;
/// empty when they are the same.
pub(crate) fn between(before: &Cover, now: &Cover, when: &str) -> Vec<String> {
    let mut said = Vec::new();
    if before.scenario == now.scenario && before.sha256 != now.sha256 {
        said.push(format!("the scenario file changed {when}"));
    }
    for covered in &now.files {
        let same_path = before
            .files
            .iter()
            .find(|old| old.path == covered.path && old.role == covered.role);
        let sentence = match same_path {
            Some(old) if old.content == covered.content => continue,
            Some(_) if covered.content == Content::Absent => {
                format!("{} is no longer there", covered.path)
            }
            Some(_) => format!("{} changed {when}", covered.path),
            None => match before.files.iter().find(|old| {
                old.at == covered.at && old.role == covered.role && old.written == covered.written
            }) {
                Some(old) => format!(
                    "{} is now {} (it was {})",
                    covered.written, covered.path, old.path
                ),
                None => format!("{} is new {when}", what(covered)),
            },
        };
        if !said.contains(&sentence) {
            said.push(sentence);
        }
    }
    if said.is_empty() && before != now {
        said.push(format!(
            "it runs fewer programs than it did {}",
            when.replace("since", "when")
        ));
    }
    said
}

/// A covered file in a few words: its path and how it is held.
pub(crate) fn what(covered: &Covered) -> String {
    let held = match &covered.content {
        Content::Sha256(sha) => format!("sha256 {}…", &sha[..sha.len().min(12)]),
        Content::System => "a system program".to_string(),
        Content::Conclave => return "conclave itself".to_string(),
        Content::Absent => "not there".to_string(),
    };
    match covered.role {
        Role::Program => format!("{} ({held})", covered.path),
        Role::Argument => format!("{} ({held}, named by {})", covered.path, covered.written),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn covered(path: &str, role: Role, content: Content) -> Covered {
        Covered {
            at: "workers.w.command".into(),
            role,
            written: "./tool.sh".into(),
            path: path.into(),
            content,
        }
    }

    fn cover(sha: &str, files: Vec<Covered>) -> Cover {
        Cover {
            scenario: Some("/s/s.json".into()),
            sha256: sha.into(),
            files,
        }
    }

    #[test]
    fn each_change_is_named() {
        let tool = |sha: &str| covered("/s/tool.sh", Role::Program, Content::Sha256(sha.into()));
        let before = cover("a", vec![tool("1")]);
        assert!(between(&before, &before, SINCE_ALLOWED).is_empty());
        assert_eq!(
            between(&before, &cover("a", vec![tool("2")]), SINCE_ALLOWED),
            ["/s/tool.sh changed since you allowed it"]
        );
        assert_eq!(
            between(&before, &cover("a", vec![tool("2")]), WHILE_ASKED),
            ["/s/tool.sh changed while you were asked"]
        );
        assert_eq!(
            between(&before, &cover("b", vec![tool("1")]), SINCE_ALLOWED),
            ["the scenario file changed since you allowed it"]
        );
        let moved = covered("/t/tool.sh", Role::Program, Content::Sha256("1".into()));
        assert_eq!(
            between(&before, &cover("a", vec![moved]), SINCE_ALLOWED),
            ["./tool.sh is now /t/tool.sh (it was /s/tool.sh)"]
        );
        let mut script = covered("/s/x.py", Role::Argument, Content::Sha256("3".into()));
        script.written = "x.py".into();
        assert_eq!(
            between(&before, &cover("a", vec![tool("1"), script]), SINCE_ALLOWED),
            ["/s/x.py (sha256 3…, named by x.py) is new since you allowed it"]
        );
        assert_eq!(
            between(&before, &cover("a", vec![]), SINCE_ALLOWED),
            ["it runs fewer programs than it did when you allowed it"]
        );
    }
}

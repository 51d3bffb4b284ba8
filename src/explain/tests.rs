use super::*;

#[test]
fn every_kind_has_a_text_that_starts_with_its_name_and_severity() {
    for k in Kind::ALL {
        let t = text(k);
        let first = t.lines().next().unwrap();
        assert_eq!(first, format!("{} ({})", k.as_str(), k.severity().as_str()));
        for section in ["Why it matters", "The rule", "Upstream", "What to do"] {
            assert!(
                t.lines().any(|l| l == section),
                "{k}: no `{section}` section"
            );
        }
        for (i, l) in t.lines().enumerate() {
            assert!(
                l.chars().count() <= 78,
                "{k}:{}: {} columns",
                i + 1,
                l.len()
            );
        }
        assert!(!summary(k).is_empty());
    }
}

#[test]
fn unknown_kind_lists_the_valid_ones() {
    let e = render(Some("zombi")).unwrap_err();
    assert!(e.contains("`zombi`"), "{e}");
    for k in Kind::ALL {
        assert!(e.contains(k.as_str()), "{e}");
    }
}

#[test]
fn no_argument_lists_every_kind_with_its_severity() {
    let l = render(None).unwrap();
    for k in Kind::ALL {
        let line = l
            .lines()
            .find(|x| x.split_whitespace().next() == Some(k.as_str()))
            .unwrap_or_else(|| panic!("{k} missing:\n{l}"));
        assert!(line.contains(k.severity().as_str()), "{line}");
    }
}

/// The texts are the long form of `docs/rules.md`: each kind has a section
/// there, and every upstream issue a text names is named there too.
#[test]
fn texts_agree_with_docs_rules() {
    let rules = include_str!("../../docs/rules.md");
    for k in Kind::ALL {
        let heading = format!("### `{}`", k.as_str());
        assert!(rules.contains(&heading), "docs/rules.md lacks `{heading}`");
        let t = text(k);
        for w in t.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')) {
            if w.starts_with("KAFKA-") && w.len() > 6 {
                assert!(rules.contains(w), "{k} names {w}, docs/rules.md does not");
            }
        }
    }
}

//! Lines the reader missed ([`WorkerReplay::lines_missed_before`]): no
//! finding rests on them, and what is seen after them is judged again.

use super::*;

impl Run {
    /// The reader says lines before the next one may have been missed.
    fn missed(&mut self) -> &mut Run {
        let n = self.seq + 1;
        let l = Line::new(SourceId(0), n, n, None, "missed", (0, 0));
        self.r.lines_missed_before(&l);
        self
    }
}

#[test]
fn no_finding_rests_on_lines_the_reader_missed() {
    // a-0 and a-1 run; their stops may be among the lines missed: a start
    // of a-0 is no double start, a revocation of a-1 no zombie, and the
    // unstarted a-0 of the next phase is not lost either.
    let mut r = started(&[t("a", 0), t("a", 1)]);
    r.missed().ev(Event::Starting(task("a", 0)));
    rebalance(&mut r)
        .ev(coop(2, 5, &[], &[t("a", 0)], &[t("a", 1)]))
        .ev(Event::StartingWork { offset: 5 })
        .ev(Event::FinishedStartingWork);
    assert_eq!(r.finish(), vec![]);
    // Without the missed lines, both are findings.
    let mut r = started(&[t("a", 0), t("a", 1)]);
    r.ev(Event::Starting(task("a", 0)));
    rebalance(&mut r).ev(coop(2, 5, &[], &[t("a", 0)], &[t("a", 1)]));
    let kinds: Vec<Kind> = r.finish().into_iter().map(|(_, k, _)| k).collect();
    assert_eq!(kinds, vec![Kind::DoubleStart, Kind::Zombie]);
}

#[test]
fn what_is_seen_after_the_missed_lines_is_judged_again() {
    let mut r = started(&[t("a", 0)]);
    r.missed()
        .ev(Event::Starting(task("a", 0)))
        .ev(Event::Starting(task("a", 0)));
    assert_eq!(r.finish(), vec![(11, Kind::DoubleStart, "a-0".into())]);
}

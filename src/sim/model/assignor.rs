//! The leader's assignors: eager round-robin, and the incremental
//! cooperative assignor (revocation before reassignment, lost work held
//! back for the scheduled rebalance delay, balance).

use super::{Cluster, off};
use crate::sim::data::{Assign, Res};
use crate::sim::truth::FaultKind;
use std::collections::{BTreeMap, BTreeSet};

impl Cluster {
    /// Is `r` in the current configuration (its connector exists and, for a
    /// task, its index is below the committed task count)?
    pub(super) fn configured_now(&self, r: Res) -> bool {
        let Some(x) = self.conns.get(usize::from(r.conn())) else {
            return false;
        };
        x.exists
            && match r {
                Res::Conn(_) => true,
                Res::Task(_, i) => i < x.tasks,
            }
    }

    fn configured(&self) -> (Vec<u16>, Vec<(u16, u16)>) {
        let mut cs = Vec::new();
        let mut ts = Vec::new();
        for (c, x) in self.conns.iter().enumerate() {
            if x.exists {
                cs.push(c as u16);
                for i in 0..x.tasks {
                    ts.push((c as u16, i));
                }
            }
        }
        (cs, ts)
    }

    fn base_assign(&self, leader: usize) -> Assign {
        let lw = &self.workers[leader];
        Assign {
            error: 0,
            leader: lw.member_id.clone(),
            leader_url: lw.url.clone(),
            offset: off(lw.read_upto),
            ..Assign::default()
        }
    }

    /// EagerAssignor: round-robin over members sorted by member id.
    pub(super) fn assign_eager(
        &mut self,
        members: &[usize],
        leader: usize,
    ) -> BTreeMap<usize, Assign> {
        let mut ms = members.to_vec();
        ms.sort_by(|a, b| self.workers[*a].member_id.cmp(&self.workers[*b].member_id));
        let base = self.base_assign(leader);
        // Maps here are built by `insert`, not `collect`: collecting into
        // a `BTreeMap` compiles a sort of its own for each place that does it.
        let mut out: BTreeMap<usize, Assign> = BTreeMap::new();
        for &m in &ms {
            out.insert(m, base.clone());
        }
        let (cs, ts) = self.configured();
        let mut k = 0usize;
        for c in cs {
            let m = ms[k % ms.len()];
            k += 1;
            if let Some(a) = out.get_mut(&m) {
                a.conns.push(c);
            }
            for &(tc, ti) in ts.iter().filter(|(tc, _)| *tc == c) {
                let m = ms[k % ms.len()];
                k += 1;
                if let Some(a) = out.get_mut(&m) {
                    a.tasks.push((tc, ti));
                }
            }
        }
        out
    }

    /// IncrementalCooperativeAssignor, in its essentials: what each member
    /// keeps and gives up, the lost work held back, the fault's move, the
    /// balance, the placement of the unassigned work, the assignments.
    pub(super) fn assign_cooperative(
        &mut self,
        members: &[usize],
        leader: usize,
    ) -> BTreeMap<usize, Assign> {
        let (cs, ts) = self.configured();
        let configured: BTreeSet<Res> = cs
            .iter()
            .map(|&c| Res::Conn(c))
            .chain(ts.iter().map(|&(c, i)| Res::Task(c, i)))
            .collect();
        let mut owned: Sets = Sets::new();
        for &m in members {
            owned.insert(m, self.workers[m].assigned.clone());
        }
        let mut split = Split::of(members, &owned, &configured);
        let all_owned: BTreeSet<Res> = owned.values().flatten().copied().collect();
        let all_kept: BTreeSet<Res> = split.kept.values().flatten().copied().collect();
        let delay = self.hold_lost_work(members, leader, &configured, &all_owned);
        let revoked_now: BTreeSet<Res> = split.revoke.values().flatten().copied().collect();
        let unassigned: BTreeSet<Res> = configured
            .iter()
            .filter(|r| {
                !all_kept.contains(r)
                    && !self.group.held_lost.contains(r)
                    && !revoked_now.contains(r)
            })
            .copied()
            .collect();
        self.move_for_fault(members, &configured, &mut split);
        self.balance(members, &unassigned, &mut split);
        let new = self.place(members, &unassigned, &split.kept);
        self.assignments(members, leader, delay, &new, &split)
    }

    /// Lost work (of members gone) is held back for the scheduled delay:
    /// the delay the assignments carry (0: none).
    fn hold_lost_work(
        &mut self,
        members: &[usize],
        leader: usize,
        configured: &BTreeSet<Res>,
        all_owned: &BTreeSet<Res>,
    ) -> i64 {
        let Some((l, mem)) = &self.group.memory else {
            self.group.held_lost.clear();
            self.group.deadline = None;
            return 0;
        };
        if *l != leader {
            self.group.held_lost.clear();
            self.group.deadline = None;
            return 0;
        }
        // Work of members that left (or rejoined as new members).
        let present: BTreeSet<&str> = members
            .iter()
            .map(|&m| self.workers[m].member_id.as_str())
            .collect();
        let lost: BTreeSet<Res> = mem
            .iter()
            .filter(|(id, _)| !present.contains(id.as_str()))
            .flat_map(|(_, set)| set.iter())
            .chain(self.group.held_lost.iter())
            .filter(|r| configured.contains(r) && !all_owned.contains(r))
            .copied()
            .collect();
        if lost.is_empty() || self.p.delay_ms <= 0 {
            self.group.deadline = None;
            self.group.held_lost.clear();
            return 0;
        }
        match self.group.deadline {
            None => {
                self.group.deadline = Some(self.lnow + self.p.delay_ms);
                self.group.held_lost = lost;
                self.p.delay_ms
            }
            Some(d) if self.lnow >= d => {
                self.group.held_lost.clear();
                self.group.deadline = None;
                0
            }
            Some(d) => {
                self.group.held_lost = lost;
                d - self.lnow
            }
        }
    }

    /// restart-moved-task: move a task its owner is about to restart.
    fn move_for_fault(&mut self, members: &[usize], configured: &BTreeSet<Res>, split: &mut Split) {
        if !self.fault.ready(FaultKind::RestartMovedTask)
            || self.fault.moved.is_some()
            || members.len() <= 1
        {
            return;
        }
        let mut cands: Vec<(usize, Res)> = Vec::new();
        for &m in members {
            for r in &self.workers[m].to_restart {
                if split.kept[&m].contains(r) && configured.contains(r) {
                    cands.push((m, *r));
                }
            }
        }
        if let Some(&(m, r)) = self.rng.pick(&cands) {
            split.take(m, r);
            self.fault.moved = Some((m, r));
        }
    }

    /// Balance: revoke from members above their share (never in two
    /// consecutive rounds, nor while lost work is held).
    fn balance(&mut self, members: &[usize], unassigned: &BTreeSet<Res>, split: &mut Split) {
        let mut balance_revoked = false;
        if self.group.held_lost.is_empty() && !self.group.prev_balance_revoked && members.len() > 1
        {
            for tasks in [false, true] {
                let to_take = share_excess(members, unassigned, &split.kept, tasks);
                for (m, k) in to_take {
                    let mut items: Vec<Res> = split.kept[&m]
                        .iter()
                        .copied()
                        .filter(|r| r.is_task() == tasks)
                        .collect();
                    self.rng.shuffle(&mut items);
                    for r in items.into_iter().take(k) {
                        split.take(m, r);
                        balance_revoked = true;
                    }
                }
            }
        }
        self.group.prev_balance_revoked = balance_revoked;
    }

    /// The unassigned work, to the least loaded members (connectors first).
    fn place(
        &self,
        members: &[usize],
        unassigned: &BTreeSet<Res>,
        kept: &Sets,
    ) -> BTreeMap<usize, Vec<Res>> {
        let mut new: BTreeMap<usize, Vec<Res>> = members.iter().map(|&m| (m, Vec::new())).collect();
        for tasks in [false, true] {
            for r in unassigned.iter().filter(|r| r.is_task() == tasks) {
                let load = |m: usize| {
                    kept[&m].iter().filter(|x| x.is_task() == tasks).count()
                        + new[&m].iter().filter(|x| x.is_task() == tasks).count()
                };
                let banned = match self.fault.moved {
                    Some((bw, br)) if br == *r => Some(bw),
                    _ => None,
                };
                let target = members
                    .iter()
                    .copied()
                    .filter(|&m| Some(m) != banned || members.len() == 1)
                    .min_by_key(|&m| (load(m), self.workers[m].join_seq));
                if let Some(m) = target
                    && let Some(v) = new.get_mut(&m)
                {
                    v.push(*r);
                }
            }
        }
        new
    }

    /// Each member's assignment (new work first, then what it keeps, and
    /// what it gives up); the leader remembers them for the next round.
    fn assignments(
        &mut self,
        members: &[usize],
        leader: usize,
        delay: i64,
        new: &BTreeMap<usize, Vec<Res>>,
        split: &Split,
    ) -> BTreeMap<usize, Assign> {
        let base = self.base_assign(leader);
        let mut out = BTreeMap::new();
        let mut memory = BTreeMap::new();
        for &m in members {
            let mut a = base.clone();
            a.delay = delay;
            for r in new[&m].iter().chain(split.kept[&m].iter()) {
                match *r {
                    Res::Conn(c) => a.conns.push(c),
                    Res::Task(c, i) => a.tasks.push((c, i)),
                }
            }
            for r in &split.revoke[&m] {
                match *r {
                    Res::Conn(c) => a.rconns.push(c),
                    Res::Task(c, i) => a.rtasks.push((c, i)),
                }
            }
            memory.insert(
                self.workers[m].member_id.clone(),
                a.resources().into_iter().collect::<BTreeSet<Res>>(),
            );
            out.insert(m, a);
        }
        self.group.memory = Some((leader, memory));
        out
    }
}

/// Per member, a set of resources.
type Sets = BTreeMap<usize, BTreeSet<Res>>;

/// What each member keeps of what it owns, and what it gives up.
struct Split {
    kept: Sets,
    revoke: Sets,
}

impl Split {
    /// Deleted work, and work two members report, is revoked (from both).
    fn of(members: &[usize], owned: &Sets, configured: &BTreeSet<Res>) -> Split {
        let mut revoke: Sets = Sets::new();
        for &m in members {
            revoke.insert(m, BTreeSet::new());
        }
        let mut count: BTreeMap<Res, usize> = BTreeMap::new();
        for set in owned.values() {
            for r in set {
                *count.entry(*r).or_default() += 1;
            }
        }
        for (&m, set) in owned {
            for r in set {
                if !configured.contains(r) || count.get(r).copied().unwrap_or(0) > 1 {
                    revoke.entry(m).or_default().insert(*r);
                }
            }
        }
        let mut kept = Sets::new();
        for (&m, set) in owned {
            kept.insert(m, set.difference(&revoke[&m]).copied().collect());
        }
        Split { kept, revoke }
    }

    /// Member `m` gives `r` up.
    fn take(&mut self, m: usize, r: Res) {
        self.revoke.entry(m).or_default().insert(r);
        if let Some(k) = self.kept.get_mut(&m) {
            k.remove(&r);
        }
    }
}

/// How many connectors (or tasks) each member above its share gives up so
/// that, with the unassigned work placed on the least loaded, every member
/// ends between the floor and the ceiling of the share.
fn share_excess(
    members: &[usize],
    unassigned: &BTreeSet<Res>,
    kept: &Sets,
    tasks: bool,
) -> BTreeMap<usize, usize> {
    let total = kept
        .values()
        .flatten()
        .chain(unassigned.iter())
        .filter(|r| r.is_task() == tasks)
        .count();
    let n = members.len();
    let floor = total / n;
    let ceil = floor + usize::from(total % n != 0);
    let mut loads: BTreeMap<usize, usize> = BTreeMap::new();
    for &m in members {
        loads.insert(m, kept[&m].iter().filter(|r| r.is_task() == tasks).count());
    }
    // Project the unassigned work onto the least loaded.
    let mut proj = loads.clone();
    for _ in unassigned.iter().filter(|r| r.is_task() == tasks) {
        if let Some((&m, _)) = proj.iter().min_by_key(|(m, l)| (**l, **m)) {
            *proj.entry(m).or_default() += 1;
        }
    }
    let mut to_take: BTreeMap<usize, usize> = BTreeMap::new();
    for &m in members {
        if proj[&m] > ceil && loads[&m] > 0 {
            let k = (proj[&m] - ceil).min(loads[&m]);
            to_take.insert(m, k);
            *proj.entry(m).or_default() -= k;
        }
    }
    let mut deficit: usize = members.iter().map(|m| floor.saturating_sub(proj[m])).sum();
    let freed: usize = to_take.values().sum();
    deficit = deficit.saturating_sub(freed);
    while deficit > 0 {
        let donor = members
            .iter()
            .copied()
            .filter(|m| proj[m] > floor && loads[m] > to_take.get(m).copied().unwrap_or(0))
            .max_by_key(|m| (proj[m], usize::MAX - *m));
        let Some(d) = donor else { break };
        *to_take.entry(d).or_default() += 1;
        *proj.entry(d).or_default() -= 1;
        deficit -= 1;
    }
    to_take
}

//! The building blocks' tests.

use super::*;

fn t(c: &str, i: u32) -> TaskId {
    TaskId::new(c, i)
}

#[test]
fn names_are_shared_and_the_table_bounded() {
    let a = task_id("orders-sink-3").unwrap().connector;
    let b = name("orders-sink");
    assert!(Name::ptr_eq(&a, &b));
    for k in 0..INTERNED_MAX + 10 {
        assert_eq!(&*name(&format!("c{k}")), format!("c{k}"));
    }
    assert!(NAMES.with_borrow(|t| t.names.len()) <= INTERNED_MAX);
    // Still right after the table was cleared.
    assert_eq!(&*name("orders-sink"), "orders-sink");
}

#[test]
fn task_ids_split_at_the_last_dash() {
    assert_eq!(task_id("my-conn-0"), Some(t("my-conn", 0)));
    assert_eq!(task_id("a-b-c-12"), Some(t("a-b-c", 12)));
    assert_eq!(task_id("my conn.v2_x-3"), Some(t("my conn.v2_x", 3)));
    assert_eq!(task_id("123-4"), Some(t("123", 4)));
    assert_eq!(task_id("x-4294967295"), Some(t("x", u32::MAX)));
}

#[test]
fn task_ids_reject_malformed() {
    for bad in [
        "",
        "conn",
        "-0",
        "conn-",
        "conn-a",
        "conn-+1",
        "conn-1 ",
        "conn-1x",
        "conn-4294967296",
        "conn-١",
        "conn-0-",
    ] {
        assert_eq!(task_id(bad), None, "{bad:?}");
    }
    // Only the last '-' separates: the name keeps any trailing '-'.
    assert_eq!(task_id("conn--1"), Some(t("conn-", 1)));
    // A one-byte name, leading zeros and the largest index still are.
    assert_eq!(task_id("0-1"), Some(t("0", 1)));
    assert_eq!(task_id("a-007"), Some(t("a", 7)));
    assert_eq!(task_id("a-4294967295"), Some(t("a", u32::MAX)));
}

#[test]
fn lists() {
    assert_eq!(name_list("[]"), Ok(("", vec![])));
    assert_eq!(
        name_list("[a, my conn, b-c.d_e]rest"),
        Ok(("rest", vec![name("a"), name("my conn"), name("b-c.d_e")]))
    );
    assert_eq!(name_list("[a,b]"), Ok(("", vec![name("a,b")])));
    assert_eq!(
        task_list("[a-0, b-c-12, my conn-1]"),
        Ok(("", vec![t("a", 0), t("b-c", 12), t("my conn", 1)]))
    );
    assert_eq!(task_list("[]"), Ok(("", vec![])));
    assert!(task_list("[a-0, b]").is_err());
    assert!(task_list("[a-0, ]").is_err());
    assert!(task_list("[a-0").is_err());
    assert!(name_list("a, b").is_err());
    assert_eq!(
        task_list("[a-0, a-1, b-2, a-3]"),
        Ok(("", vec![t("a", 0), t("a", 1), t("b", 2), t("a", 3)]))
    );
}

/// The lists as nom's `separated_list0` of elements up to `", "` or
/// `]` read them (the reference the hand-written lists must match).
fn nom_list<'a, T>(
    input: &'a str,
    item: impl Fn(&'a str) -> Option<T>,
) -> Option<(&'a str, Vec<T>)> {
    use nom::multi::separated_list0;
    fn list_item(i: &str) -> PResult<'_, &str> {
        let b = i.as_bytes();
        let mut k = 0;
        while k < b.len() && b[k] != b']' && !(b[k] == b',' && b.get(k + 1) == Some(&b' ')) {
            k += 1;
        }
        if k == 0 {
            return reject(i, ErrorKind::TakeTill1);
        }
        Ok((&i[k..], &i[..k]))
    }
    delimited(
        tag("["),
        separated_list0(tag(", "), map_opt(list_item, item)),
        tag("]"),
    )
    .parse(input)
    .ok()
}

#[test]
fn lists_read_as_nom_reads_them() {
    // Every string of up to 6 bytes over the bytes that matter.
    let alphabet = ["[", "]", ",", " ", "a", "-", "1"];
    let mut cases = vec![String::new()];
    let mut frontier = vec![String::new()];
    for _ in 0..6 {
        let mut next = Vec::new();
        for p in &frontier {
            for c in alphabet {
                next.push(format!("{p}{c}"));
            }
        }
        cases.extend(next.iter().cloned());
        frontier = next;
    }
    for s in cases.iter().map(|c| format!("[{c}")).chain(cases.clone()) {
        assert_eq!(name_list(&s).ok(), nom_list(&s, |x| Some(name(x))), "{s:?}");
        assert_eq!(task_list(&s).ok(), nom_list(&s, task_id), "{s:?}");
    }
}

/// `assignment` as nom combinators (what the hand-written one replaced).
fn nom_assignment(input: &str) -> PResult<'_, Assignment> {
    let extension = (
        preceded(tag(", revokedConnectorIds="), name_list),
        preceded(tag(", revokedTaskIds="), task_list),
        preceded(tag(", delay="), int64),
    );
    let (i, (error, leader, leader_url, offset, connectors, tasks, ext, _)) = (
        preceded(tag("Assignment{error="), int32),
        delimited(tag(", leader='"), take_until("', leaderUrl='"), tag("'")),
        delimited(tag(", leaderUrl='"), take_until("', offset="), tag("'")),
        preceded(tag(", offset="), int64),
        preceded(tag(", connectorIds="), name_list),
        preceded(tag(", taskIds="), task_list),
        opt(extension),
        tag("}"),
    )
        .parse(input)?;
    let (revoked_connectors, revoked_tasks, delay) = match ext {
        Some((c, t, d)) => (Some(c), Some(t), Some(d)),
        None => (None, None, None),
    };
    Ok((
        i,
        Assignment {
            error,
            leader: leader.to_string(),
            leader_url: leader_url.to_string(),
            offset,
            connectors: connectors.into(),
            tasks: tasks.into(),
            revoked_connectors: revoked_connectors.map(Into::into),
            revoked_tasks: revoked_tasks.map(Into::into),
            delay,
        },
    ))
}

#[test]
fn assignments_read_as_nom_reads_them() {
    let shapes = [
        "Assignment{error=0, leader='connect-1-6c8f', leaderUrl='http://localhost:8082/', offset=-1, connectorIds=[], taskIds=[]}",
        "Assignment{error=1, leader='l', leaderUrl='u', offset=45, connectorIds=[a, my conn], taskIds=[a-0, b-c-1], revokedConnectorIds=[x.y], revokedTaskIds=[x.y-3], delay=300000} with rebalance delay: 300000",
        "Assignment{error=+2, leader='', leaderUrl='', offset=+0, connectorIds=[a], taskIds=[a-1], revokedConnectorIds=[], revokedTaskIds=[], delay=-9223372036854775808}",
        "Assignment{error=-2147483648, leader='a', leaderUrl='b', offset=9223372036854775807, connectorIds=[], taskIds=[]}}",
        "Assignment{error=2147483648, leader='a', leaderUrl='b', offset=1, connectorIds=[], taskIds=[]}",
        "Assignment{error=0, leader='a', leaderUrl='b', offset=9223372036854775808, connectorIds=[], taskIds=[]}",
        "Assignment{error=0, leader='a', leader', leaderUrl='b', offset=1', offset=2, connectorIds=[], taskIds=[]}",
        "Assignment{error=0, leader='a', leaderUrl='b', offset=1, connectorIds=[], taskIds=[], revokedConnectorIds=[], delay=0}",
        "Assignment{error=0, leader='a', leaderUrl='b', offset=1, connectorIds=[], taskIds=[], revokedConnectorIds=[], revokedTaskIds=[], delay=}",
        "Assignment{error=0, leader='é', leaderUrl='ü', offset=1, connectorIds=[é], taskIds=[é-0]}",
    ];
    for s in shapes {
        // Every prefix, and each with one byte dropped.
        let mut cases: Vec<String> = (0..=s.len())
            .filter(|&k| s.is_char_boundary(k))
            .map(|k| s[..k].to_string())
            .collect();
        for k in (0..s.len()).filter(|&k| s.is_char_boundary(k)) {
            let mut c = s.to_string();
            c.remove(k);
            cases.push(c);
        }
        for c in &cases {
            let want = nom_assignment(c).ok();
            assert_eq!(assignment(c).ok(), want, "{c:?}");
        }
    }
}

#[test]
fn v0_assignment() {
    let s = "Assignment{error=0, leader='connect-1-6c8f', leaderUrl='http://localhost:8082/', offset=-1, connectorIds=[], taskIds=[]}";
    let (rest, a) = assignment(s).unwrap();
    assert_eq!(rest, "");
    assert_eq!(a.error, 0);
    assert_eq!(a.leader, "connect-1-6c8f");
    assert_eq!(a.leader_url, "http://localhost:8082/");
    assert_eq!(a.offset, -1);
    assert!(a.connectors.is_empty() && a.tasks.is_empty());
    assert_eq!(a.revoked_connectors, None);
    assert_eq!(a.revoked_tasks, None);
    assert_eq!(a.delay, None);
    assert!(!a.is_extended());
}

#[test]
fn extended_assignment() {
    let s = "Assignment{error=1, leader='connect-1-3a9d', leaderUrl='http://10.244.3.7:8083/', offset=45, connectorIds=[a, my conn], taskIds=[a-0, b-c-1], revokedConnectorIds=[x.y], revokedTaskIds=[x.y-3], delay=300000} with rebalance delay: 300000";
    let (rest, a) = assignment(s).unwrap();
    assert_eq!(rest, " with rebalance delay: 300000");
    assert!(a.failed());
    assert_eq!(a.leader_url, "http://10.244.3.7:8083/");
    assert_eq!(a.offset, 45);
    assert_eq!(*a.connectors, vec![name("a"), name("my conn")]);
    assert_eq!(*a.tasks, vec![t("a", 0), t("b-c", 1)]);
    assert_eq!(
        a.revoked_connectors.as_deref(),
        Some(&vec![name("x.y")][..])
    );
    assert_eq!(a.revoked_tasks.as_deref(), Some(&vec![t("x.y", 3)][..]));
    assert_eq!(a.delay, Some(300000));
}

#[test]
fn empty_extended_assignment_keeps_null() {
    let s = "Assignment{error=0, leader='null', leaderUrl='null', offset=-1, connectorIds=[], taskIds=[], revokedConnectorIds=[], revokedTaskIds=[], delay=0}";
    let (_, a) = assignment(s).unwrap();
    assert_eq!(a.leader, "null");
    assert_eq!(a.leader_url, "null");
    assert_eq!(a.revoked_connectors.as_deref(), Some(&vec![][..]));
    assert_eq!(a.revoked_tasks.as_deref(), Some(&vec![][..]));
    assert_eq!(a.delay, Some(0));
    assert!(a.is_extended());
}

#[test]
fn assignment_rejects_broken_shapes() {
    assert!(assignment("Assignment{error=0}").is_err());
    assert!(
        assignment(
            "Assignment{error=0, leader='a', leaderUrl='b', offset=x, connectorIds=[], taskIds=[]}"
        )
        .is_err()
    );
    assert!(
        assignment("Assignment{error=0, leader='a', leaderUrl='b', offset=1, connectorIds=[], taskIds=[bad]}")
            .is_err()
    );
}

#[test]
fn generations() {
    assert_eq!(
        generation("7"),
        Ok((
            "",
            GenerationText {
                id: 7,
                member_id: None,
                protocol: None
            }
        ))
    );
    let (_, g) =
        generation("Generation{generationId=5, memberId='connect-1-d24c', protocol='sessioned'}")
            .unwrap();
    assert_eq!(g.id, 5);
    assert_eq!(g.member_id, Some("connect-1-d24c"));
    assert_eq!(g.protocol, Some(Protocol::Sessioned));
    let (_, g) = generation("Generation{generationId=-1, memberId='', protocol='null'}").unwrap();
    assert_eq!((g.id, g.member_id, g.protocol), (-1, Some(""), None));
    let (_, g) =
        generation("Generation{generationId=2, memberId='m', protocol='default'}").unwrap();
    assert_eq!(g.protocol, Some(Protocol::Eager));
}

#[test]
fn worker_refs() {
    assert_eq!(
        worker_task_ref("WorkerSinkTask{id=my-sink-0}"),
        Ok(("", t("my-sink", 0)))
    );
    assert_eq!(
        worker_task_ref("ExactlyOnceWorkerSourceTask{id=a b-2}"),
        Ok(("", t("a b", 2)))
    );
    assert!(worker_task_ref("WorkerSinkTask{id=nope}").is_err());
    assert!(worker_task_ref("Worker{id=x-0}").is_err());
    assert_eq!(
        worker_connector_ref("WorkerConnector{id=a}b}"),
        Ok(("", name("a}b")))
    );
}

#[test]
fn restart_shapes() {
    let (_, (c, f, i)) = restart_request(
        "restart request for {connectorName='my conn', onlyFailed=false, includeTasks=true}",
    )
    .unwrap();
    assert_eq!((&*c, f, i), ("my conn", false, true));
    let (rest, c) = restart_plan(
        "plan to restart connector and 2 of 2 tasks for restart request for {connectorName='src', onlyFailed=true, includeTasks=true}",
    )
    .unwrap();
    assert_eq!((rest, &*c), ("", "src"));
    let (_, c) = restart_plan(
        "plan to restart 1 of 2 tasks for restart request for {connectorName='a-b', onlyFailed=true, includeTasks=true}",
    )
    .unwrap();
    assert_eq!(&*c, "a-b");
}

#[test]
fn tag_reads_as_nom_reads_it() {
    for t in ["Assignment{error=", "'", "é, x"] {
        for i in [
            "",
            "Assignment{error=0",
            "Assignment{error",
            "'x",
            "é, xy",
            "é,",
            "x",
        ] {
            let nom_tag = nom::bytes::complete::tag::<_, _, Error<&str>>(t)(i);
            assert_eq!(tag(t)(i), nom_tag, "{t:?} {i:?}");
        }
    }
}

#[test]
fn suffix_helpers() {
    assert_eq!(
        before_suffix(" config updated")("my conn config updated"),
        Ok(("", "my conn"))
    );
    assert!(before_suffix(" config updated")(" config updated").is_err());
    assert_eq!(
        until_last(" of type ")("a of type b of type c"),
        Ok(("c", "a of type b"))
    );
    assert!(until_last(" x")(" x").is_err());
}

#[test]
fn a_list_read_again_is_the_same_list() {
    // The same text: the list kept, not another.
    let (_, a) = task_list_shared_for_test("[memo-a-0, memo-b-1]");
    let (_, b) = task_list_shared_for_test("[memo-a-0, memo-b-1]");
    assert!(Arc::ptr_eq(&a, &b));
    assert_eq!(*a, vec![t("memo-a", 0), t("memo-b", 1)]);
    // Another text is parsed, whatever slot it falls in.
    let (_, c) = task_list_shared_for_test("[memo-a-0]");
    assert_eq!(*c, vec![t("memo-a", 0)]);
    // A list that does not parse is not kept: it fails again.
    assert!(shared_tasks("[memo-a-x]").is_err());
    assert!(shared_tasks("[memo-a-x]").is_err());
    assert!(shared_names("[a, ]").is_err());
    let (_, n) = shared_names("[memo-c, memo d]").unwrap();
    let (_, m) = shared_names("[memo-c, memo d]").unwrap();
    assert!(Arc::ptr_eq(&n, &m));
    assert_eq!(*n, vec![name("memo-c"), name("memo d")]);
    // The empty lists are one list each.
    assert!(Arc::ptr_eq(
        &shared_tasks("[]").unwrap().1,
        &shared_tasks("[]").unwrap().1
    ));
}

fn task_list_shared_for_test(s: &str) -> (&str, Arc<[TaskId]>) {
    shared_tasks(s).unwrap()
}

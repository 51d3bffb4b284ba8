//! Every input a fuzz target once failed on (`tests/fuzz-regressions/`,
//! named after the target), replayed through the same harness.

use herder_audit::testing::harness;

#[test]
fn fuzz_findings_stay_fixed() {
    let mut n = 0;
    for e in std::fs::read_dir("tests/fuzz-regressions").unwrap() {
        let p = e.unwrap().path();
        let data = std::fs::read(&p).unwrap();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with("audit-") {
            let internal = harness::pipeline(&data);
            assert!(internal.is_empty(), "{name}: {internal:?}");
        } else if name.starts_with("sources-") {
            let internal = harness::sources(&data);
            assert!(internal.is_empty(), "{name}: {internal:?}");
        } else if name.starts_with("envelope-") {
            harness::line(&data);
        } else if name.starts_with("messages-") {
            harness::message(&data);
        } else {
            panic!("{name}: unknown target");
        }
        n += 1;
    }
    assert!(n > 0);
}

//! Replays Go's own `time.ParseDuration` answers (tests/fixtures/go-duration/recordings.json, written by
//! tools/go-duration-oracle/regen.sh) against `capz::go_duration::parse`: the value, or the error word for word.

use serde::Deserialize;

#[derive(Deserialize)]
struct Recording {
    input: String,
    nanos: Option<i64>,
    error: Option<String>,
}

#[test]
fn parse_agrees_with_go_on_every_recording() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/go-duration/recordings.json");
    let text = std::fs::read_to_string(path).expect("recordings are committed");
    let recordings: Vec<Recording> = serde_json::from_str(&text).expect("recordings are a JSON array");
    assert!(recordings.len() > 1000, "only {} recordings", recordings.len());
    let mut disagreements = Vec::new();
    for recording in &recordings {
        let ours = capz::go_duration::parse(&recording.input).map_err(|error| error.to_string());
        let go = match (recording.nanos, &recording.error) {
            (Some(nanos), None) => Ok(nanos),
            (None, Some(error)) => Err(error.clone()),
            _ => panic!("recording {:?} has neither or both of nanos and error", recording.input),
        };
        if ours != go {
            disagreements.push(format!("{:?}: Go {go:?}, ours {ours:?}", recording.input));
        }
    }
    assert!(disagreements.is_empty(), "{} disagreements with Go:\n{}", disagreements.len(), disagreements.join("\n"));
}

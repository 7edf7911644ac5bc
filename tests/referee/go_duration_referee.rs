//! Replays Go's own `time.ParseDuration` answers (tests/fixtures/go-duration/recordings.json, written by
//! tools/go-duration-oracle/regen.sh) against `capz::go_duration`: `parse` gives Go's value, or its error word for
//! word, and `seconds` gives the very float64 of Go's `Duration.Seconds()`.

use serde::Deserialize;

#[derive(Deserialize)]
struct Recording {
    input: String,
    nanos: Option<i64>,
    seconds: Option<String>,
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
        if let (Some(nanos), Some(text)) = (recording.nanos, &recording.seconds) {
            let go_seconds: f64 = text.parse().expect("Go's 'g' format reads back");
            let our_seconds = capz::go_duration::seconds(nanos);
            if our_seconds.to_bits() != go_seconds.to_bits() {
                disagreements.push(format!("seconds of {nanos}ns: Go {go_seconds:e}, ours {our_seconds:e}"));
            }
        }
    }
    assert!(disagreements.is_empty(), "{} disagreements with Go:\n{}", disagreements.len(), disagreements.join("\n"));
}

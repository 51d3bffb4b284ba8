//! Which inputs form one stream, and in which order the streams and their
//! segments are read: rotated segments of one log (in one directory) are
//! one stream, read in the time order of their first time stamps; every
//! other input is a stream of its own. Streams are ranked in the order of
//! their first input.

use crate::input::{self, Input, rotation};
use crate::model::Timestamp;
use rayon::prelude::*;

/// One stream: its name and its segments (indices into the run's inputs),
/// in reading order.
#[derive(Debug, Clone, PartialEq)]
pub struct Stream {
    pub name: String,
    pub segments: Vec<usize>,
}

/// The streams of `inputs`, ranked; the segments of each in time order.
pub fn streams(inputs: &[Input], parallel: bool) -> Vec<Stream> {
    let mut fams = rotation::group(inputs);
    let multi: Vec<usize> = fams
        .iter()
        .filter(|f| f.segments.len() > 1)
        .flat_map(|f| f.segments.iter().copied())
        .collect();
    let peek = |&i: &usize| {
        let ts = input::open(&inputs[i])
            .ok()
            .and_then(|(r, _)| rotation::first_timestamp(r));
        (i, ts)
    };
    let peeked: Vec<(usize, Option<Timestamp>)> = if parallel {
        multi.par_iter().map(peek).collect()
    } else {
        multi.iter().map(peek).collect()
    };
    let mut first = vec![None; inputs.len()];
    for (i, ts) in peeked {
        first[i] = ts;
    }
    for f in &mut fams {
        if f.segments.len() > 1 {
            rotation::order_segments(inputs, f, &first);
        }
    }
    fams.into_iter()
        .map(|f| Stream {
            name: rotation::stream_name(inputs, &f),
            segments: f.segments,
        })
        .collect()
}

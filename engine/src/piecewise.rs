//! A postcard input that reads its bytes from any `io::Read` a piece at a time, so that a
//! snapshot is decoded without its whole blob in memory beside the graph it becomes.

use std::io::{ErrorKind, Read};

use postcard::de_flavors::Flavor;

/// Bytes asked of the source at once.
pub const PIECE_BYTES: usize = 4 * 1024 * 1024;

/// Postcard's input over `source`: one piece of it at a time, and a scratch copy for a value
/// that straddles two pieces.
pub struct PiecewiseInput<R: Read> {
    source: R,
    piece: Vec<u8>,
    at: usize,
    filled: usize,
    scratch: Vec<u8>,
    /// Why the source could not be read, when it could not (postcard's errors carry no cause).
    failure: Option<std::io::Error>,
}

impl<R: Read> PiecewiseInput<R> {
    pub fn new(source: R) -> PiecewiseInput<R> {
        PiecewiseInput {
            source,
            piece: vec![0; PIECE_BYTES],
            at: 0,
            filled: 0,
            scratch: Vec::new(),
            failure: None,
        }
    }

    /// Reads the next piece; false at the end of the source or when it fails.
    fn refill(&mut self) -> bool {
        loop {
            match self.source.read(&mut self.piece) {
                Ok(0) => return false,
                Ok(n) => {
                    self.at = 0;
                    self.filled = n.min(self.piece.len());
                    return true;
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => {
                    self.failure = Some(e);
                    return false;
                }
            }
        }
    }

    /// Why the source could not be read, if it could not.
    pub fn failure(self) -> Option<std::io::Error> {
        self.failure
    }

    /// The next `n` bytes (fewer only at the end of the source), copied into `out`.
    pub fn take_into(&mut self, n: usize, out: &mut Vec<u8>) -> bool {
        out.clear();
        while out.len() < n {
            if self.at == self.filled && !self.refill() {
                return false;
            }
            let end = self.filled.min(self.at + (n - out.len()));
            out.extend_from_slice(&self.piece[self.at..end]);
            self.at = end;
        }
        true
    }
}

impl<'de, R: Read + 'de> Flavor<'de> for PiecewiseInput<R> {
    /// Why the source could not be read, when it could not.
    type Remainder = Option<std::io::Error>;
    type Source = ();

    fn pop(&mut self) -> postcard::Result<u8> {
        if self.at == self.filled && !self.refill() {
            return Err(postcard::Error::DeserializeUnexpectedEnd);
        }
        let byte = self.piece[self.at];
        self.at += 1;
        Ok(byte)
    }

    /// The bytes left in this piece: postcard trusts no sequence's length above it for sizing
    /// the sequence up front (each element takes a byte at least), so a damaged length never
    /// reserves more than a piece holds.
    fn size_hint(&self) -> Option<usize> {
        Some(self.filled - self.at)
    }

    /// Nothing can be lent for the whole decode: only owned values (`String`, byte buffers) are
    /// read through this input, and a borrowed one is refused.
    fn try_take_n(&mut self, _ct: usize) -> postcard::Result<&'de [u8]> {
        Err(postcard::Error::DeserializeBadEncoding)
    }

    fn try_take_n_temp<'a>(&'a mut self, ct: usize) -> postcard::Result<&'a [u8]>
    where
        'de: 'a,
    {
        if self.filled - self.at >= ct {
            let start = self.at;
            self.at += ct;
            return Ok(&self.piece[start..self.at]);
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        let whole = self.take_into(ct, &mut scratch);
        self.scratch = scratch;
        if whole {
            Ok(&self.scratch)
        } else {
            Err(postcard::Error::DeserializeUnexpectedEnd)
        }
    }

    fn finalize(self) -> postcard::Result<Option<std::io::Error>> {
        Ok(self.failure())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::{Deserialize, Serialize};

    /// A source that hands over at most `step` bytes per read.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Sample {
        words: Vec<String>,
        #[serde(with = "serde_bytes")]
        blob: Vec<u8>,
        numbers: Vec<u64>,
    }

    fn decoded(bytes: &[u8], step: usize) -> postcard::Result<Sample> {
        let mut de =
            postcard::Deserializer::from_flavor(PiecewiseInput::new(Trickle { bytes, step }));
        Sample::deserialize(&mut de)
    }

    #[test]
    fn values_straddling_pieces_decode_as_from_one_slice() {
        let sample = Sample {
            words: (0..2000)
                .map(|i| format!("word{i}").repeat(i % 7))
                .collect(),
            blob: (0..PIECE_BYTES + 77).map(|i| (i % 251) as u8).collect(),
            numbers: (0..5000).map(|i| i * 1_000_003).collect(),
        };
        let bytes = postcard::to_allocvec(&sample).unwrap();
        for step in [1, 3, 4096, PIECE_BYTES] {
            assert_eq!(decoded(&bytes, step).unwrap(), sample, "step {step}");
        }
        let cut = &bytes[..bytes.len() - 1];
        assert_eq!(
            decoded(cut, 4096),
            Err(postcard::Error::DeserializeUnexpectedEnd)
        );
    }
}

//! A request's body, read under the limit and inflated under it: a body
//! that grows past the limit stops being read there, and a gzip bomb stops
//! inflating at the limit's next byte, never inflated whole.

use bytes::{Bytes, BytesMut};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use std::io::Read;

/// Why a body was not read.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum BodyError {
    /// Over the limit, before or after inflating.
    TooLarge { limit: usize },
    /// Gzip that is truncated or not gzip.
    Corrupt(String),
    /// The connection failed while the body was read.
    Broken(String),
}

/// Read the body, at most `limit` bytes; `expected` is its declared
/// length, if any, to reserve once.
pub(super) async fn read(
    mut body: Incoming,
    limit: usize,
    expected: Option<u64>,
) -> Result<Bytes, BodyError> {
    let reserve = expected.map_or(0, |n| usize::try_from(n).unwrap_or(limit).min(limit));
    let mut buffer = BytesMut::with_capacity(reserve);
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| BodyError::Broken(e.to_string()))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        if buffer.len() + data.len() > limit {
            return Err(BodyError::TooLarge { limit });
        }
        buffer.extend_from_slice(&data);
    }
    Ok(buffer.freeze())
}

/// Inflate a gzip body (one or more members), at most `limit` bytes.
pub(super) fn gunzip(compressed: &[u8], limit: usize) -> Result<Vec<u8>, BodyError> {
    let mut out = Vec::with_capacity(compressed.len().saturating_mul(4).min(limit));
    let decoder = flate2::read::MultiGzDecoder::new(compressed);
    // One byte past the limit tells a body at the limit from one beyond.
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    decoder
        .take(cap)
        .read_to_end(&mut out)
        .map_err(|e| BodyError::Corrupt(format!("the gzip body does not inflate: {e}")))?;
    if out.len() > limit {
        return Err(BodyError::TooLarge { limit });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::Compression;
    use flate2::write::GzEncoder;
    use std::io::Write;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
        encoder.write_all(data).unwrap();
        encoder.finish().unwrap()
    }

    #[test]
    fn a_body_at_the_limit_inflates_and_one_past_it_does_not() {
        let data = vec![b'a'; 1000];
        assert_eq!(gunzip(&gzip(&data), 1000).unwrap(), data);
        assert_eq!(
            gunzip(&gzip(&data), 999),
            Err(BodyError::TooLarge { limit: 999 })
        );
    }

    #[test]
    fn a_bomb_stops_at_the_limit() {
        // 1 GiB of zeros as 1024 members of a megabyte each, a few
        // megabytes of gzip; inflating it whole would hold the gigabyte.
        let bomb = gzip(&vec![0u8; 1 << 20]).repeat(1024);
        assert!(bomb.len() < 8 << 20, "{}", bomb.len());
        assert_eq!(
            gunzip(&bomb, 8 << 20),
            Err(BodyError::TooLarge { limit: 8 << 20 })
        );
    }

    #[test]
    fn truncated_gzip_and_garbage_are_corrupt() {
        let whole = gzip(&[b'x'; 5000]);
        let cut = &whole[..whole.len() / 2];
        assert!(matches!(gunzip(cut, 1 << 20), Err(BodyError::Corrupt(_))));
        assert!(matches!(
            gunzip(b"not gzip at all", 1 << 20),
            Err(BodyError::Corrupt(_))
        ));
    }

    #[test]
    fn concatenated_members_inflate_as_one_body() {
        let mut two = gzip(b"first ");
        two.extend(gzip(b"second"));
        assert_eq!(gunzip(&two, 100).unwrap(), b"first second");
    }
}

//! Latencies as a small histogram on a log scale: exact under 16 ms, then
//! eight bins per doubling (at most 12.5 % wide), kept sparse so a tool
//! whose calls take a few typical times costs a few entries. Histograms
//! add and subtract, so a window can slide and buckets can merge; a
//! percentile is read to the bin's upper edge, never above the largest
//! latency seen.

/// Bins below this hold one millisecond each.
const EXACT: u64 = 16;
/// Bins per doubling above `EXACT`.
const PER_OCTAVE: u64 = 8;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Latencies {
    /// (bin, count), by bin, no zero counts.
    bins: Vec<(u8, u32)>,
    count: u32,
    /// The largest latency added (kept through removals: an upper bound).
    max: u64,
}

/// The bin of a latency.
fn bin(ms: u64) -> u8 {
    if ms < EXACT {
        return ms as u8;
    }
    let octave = u64::from(63 - ms.leading_zeros()); // 4 and up
    let sub = (ms >> (octave - 3)) & (PER_OCTAVE - 1);
    let bin = EXACT + (octave - 4) * PER_OCTAVE + sub;
    bin.min(u64::from(u8::MAX)) as u8
}

/// The largest latency a bin holds.
fn upper(bin: u8) -> u64 {
    let bin = u64::from(bin);
    if bin < EXACT {
        return bin;
    }
    let octave = 4 + (bin - EXACT) / PER_OCTAVE;
    let sub = (bin - EXACT) % PER_OCTAVE;
    ((PER_OCTAVE + sub + 1) << (octave - 3)) - 1
}

impl Latencies {
    pub(crate) fn add(&mut self, ms: u64) {
        let bin = bin(ms);
        match self.bins.binary_search_by_key(&bin, |(b, _)| *b) {
            Ok(i) => self.bins[i].1 += 1,
            Err(i) => self.bins.insert(i, (bin, 1)),
        }
        self.count += 1;
        self.max = self.max.max(ms);
    }

    /// Take back one latency added before.
    pub(crate) fn remove(&mut self, ms: u64) {
        let bin = bin(ms);
        if let Ok(i) = self.bins.binary_search_by_key(&bin, |(b, _)| *b) {
            self.count -= 1;
            self.bins[i].1 -= 1;
            if self.bins[i].1 == 0 {
                self.bins.remove(i);
            }
        }
    }

    /// Add every latency of `other`.
    pub(crate) fn merge(&mut self, other: &Latencies) {
        for &(bin, n) in &other.bins {
            match self.bins.binary_search_by_key(&bin, |(b, _)| *b) {
                Ok(i) => self.bins[i].1 += n,
                Err(i) => self.bins.insert(i, (bin, n)),
            }
        }
        self.count += other.count;
        self.max = self.max.max(other.max);
    }

    #[cfg(test)]
    fn count(&self) -> u32 {
        self.count
    }

    /// The `p`-th percentile (0–100), nearest rank, to the upper edge of
    /// its bin; `None` when empty.
    pub(crate) fn percentile(&self, p: u32) -> Option<u64> {
        if self.count == 0 {
            return None;
        }
        let rank = (u64::from(p.min(100)) * u64::from(self.count))
            .div_ceil(100)
            .max(1);
        let mut seen = 0u64;
        let bin = self
            .bins
            .iter()
            .find(|(_, n)| {
                seen += u64::from(*n);
                seen >= rank
            })
            .map_or(u8::MAX, |(b, _)| *b);
        Some(upper(bin).min(self.max))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_are_exact_low_and_at_most_an_eighth_wide_above() {
        for ms in 0..EXACT {
            assert_eq!(upper(bin(ms)), ms);
        }
        for ms in [16, 17, 100, 999, 1000, 2047, 2048, 65_535, 3_600_000] {
            let top = upper(bin(ms));
            assert!(top >= ms, "{ms} lies under its bin's top {top}");
            assert!(
                (top - ms) as f64 <= ms as f64 / 8.0,
                "{ms}: its bin reaches {top}"
            );
        }
        assert!(
            bin(u64::MAX) == u8::MAX,
            "huge latencies share the last bin"
        );
    }

    #[test]
    fn percentiles_come_within_a_bin_and_never_above_the_largest() {
        let mut latencies = Latencies::default();
        assert_eq!(latencies.percentile(95), None);
        for ms in 1..=100 {
            latencies.add(ms);
        }
        assert_eq!(latencies.percentile(95), Some(95), "95 is a bin's top");
        let p50 = latencies.percentile(50).unwrap();
        assert!((50..=53).contains(&p50), "{p50}");
        assert_eq!(latencies.percentile(100), Some(100));

        let mut one = Latencies::default();
        one.add(1234);
        assert_eq!(one.percentile(95), Some(1234), "a single call is exact");
    }

    #[test]
    fn removing_and_merging_keep_the_counts() {
        let mut a = Latencies::default();
        let mut b = Latencies::default();
        for ms in [300, 320, 2900] {
            a.add(ms);
        }
        b.add(3100);
        a.merge(&b);
        assert_eq!(a.count(), 4);
        assert!(a.percentile(95).unwrap() >= 3000);
        a.remove(2900);
        a.remove(3100);
        assert_eq!(a.count(), 2);
        assert!(a.percentile(95).unwrap() < 360, "the slow ones left");
        a.remove(300);
        a.remove(320);
        assert_eq!(a.percentile(50), None);
        assert!(a.bins.is_empty());
    }
}

//! The tools' unit vectors stored eight tools side by side per dimension, so that a turn's dot
//! product with every tool runs eight tools per instruction, each summed in a plain loop's order.

/// Tools per block: one AVX register of `f32`.
const LANES: usize = 8;

/// Unit vectors of one length, blocked by [`LANES`] tools; a vector of another length matches
/// nothing (its dot product is 0, as a zero vector's).
#[derive(Debug, Clone, Default)]
pub(crate) struct Units {
    dims: usize,
    /// `blocks[b * dims + d][l]`: dimension `d` of tool `b * LANES + l` (zero past the last).
    blocks: Vec<[f32; LANES]>,
    /// Whether each tool's vector has `dims` values.
    fits: Vec<bool>,
}

impl Units {
    /// The vectors of `units`, in order; their length is the first non-empty one's.
    pub(crate) fn new(units: &[Vec<f32>]) -> Units {
        let dims = units.iter().map(Vec::len).find(|&n| n > 0).unwrap_or(0);
        let fits: Vec<bool> = units.iter().map(|u| dims > 0 && u.len() == dims).collect();
        let mut blocks = vec![[0.0; LANES]; units.len().div_ceil(LANES) * dims];
        for (i, unit) in units.iter().enumerate().filter(|(i, _)| fits[*i]) {
            let block = i / LANES * dims;
            for (d, value) in unit.iter().enumerate() {
                blocks[block + d][i % LANES] = *value;
            }
        }
        Units { dims, blocks, fits }
    }

    /// Each tool's dot product with `turn`: `Σ unit[d] × turn[d]` added in order of `d`
    /// (exactly a plain loop's value); 0 for every tool when `turn` has another length.
    pub(crate) fn dots(&self, turn: &[f32]) -> Vec<f32> {
        let mut out = vec![0.0; self.fits.len()];
        if self.dims == 0 || turn.len() != self.dims {
            return out;
        }
        for (b, block) in self.blocks.chunks_exact(self.dims).enumerate() {
            // `Iterator::sum` of floats starts from -0.0; so does each lane.
            let mut sums = [-0.0f32; LANES];
            for (values, t) in block.iter().zip(turn) {
                for (sum, value) in sums.iter_mut().zip(values) {
                    *sum += value * t;
                }
            }
            for (l, sum) in sums.into_iter().enumerate() {
                let i = b * LANES + l;
                if self.fits.get(i) == Some(&true) {
                    out[i] = sum;
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_dot_product_has_the_bits_of_a_plain_loop() {
        let dims = 37;
        let units: Vec<Vec<f32>> = (0..21)
            .map(|t| {
                (0..dims)
                    .map(|d| ((t * 31 + d * 17) % 23) as f32 / 7.3 - 1.4)
                    .collect()
            })
            .collect();
        let turn: Vec<f32> = (0..dims).map(|d| (d as f32 * 0.37).sin()).collect();
        let dots = Units::new(&units).dots(&turn);
        assert_eq!(dots.len(), units.len());
        for (unit, dot) in units.iter().zip(&dots) {
            let plain: f32 = unit.iter().zip(&turn).map(|(a, b)| a * b).sum();
            assert_eq!(plain.to_bits(), dot.to_bits());
        }
    }

    #[test]
    fn vectors_of_another_length_match_nothing() {
        let units = vec![vec![1.0, 0.0], vec![], vec![0.0, 1.0, 0.0], vec![0.5, 0.25]];
        let dots = Units::new(&units).dots(&[1.0, 1.0]);
        assert_eq!(dots, vec![1.0, 0.0, 0.0, 0.75]);
        assert_eq!(Units::new(&units).dots(&[1.0, 1.0, 1.0]), vec![0.0; 4]);
        assert_eq!(Units::new(&[]).dots(&[1.0]), Vec::<f32>::new());
    }
}

//! A uniform grid of square cells over a rectangle: the cell a point falls in, and items
//! bucketed by cell with a counting sort. The layout, hit-testing and the edge picture share it.

/// Square cells of side `cell`, `cols × rows` of them, from (`x0`, `y0`); row-major indices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cells {
    /// Left edge of the grid.
    pub x0: f32,
    /// Top edge of the grid.
    pub y0: f32,
    /// Side of one square cell.
    pub cell: f32,
    /// Cells per row.
    pub cols: usize,
    /// Rows of cells.
    pub rows: usize,
}

impl Cells {
    /// Cells of side `cell` covering `bounds` (min x, min y, max x, max y); at least one.
    pub fn over(bounds: [f32; 4], cell: f32) -> Cells {
        let [x0, y0, x1, y1] = bounds;
        let (w, h) = ((x1 - x0).max(0.0), (y1 - y0).max(0.0));
        Cells {
            x0,
            y0,
            cell,
            cols: ((w / cell).ceil() as usize).max(1),
            rows: ((h / cell).ceil() as usize).max(1),
        }
    }

    /// How many cells the grid has.
    pub fn count(&self) -> usize {
        self.cols * self.rows
    }

    /// The column and row of a point; points outside fall in the nearest border cell.
    pub fn col_row(&self, x: f32, y: f32) -> (usize, usize) {
        let col = ((x - self.x0) / self.cell)
            .floor()
            .clamp(0.0, (self.cols - 1) as f32);
        let row = ((y - self.y0) / self.cell)
            .floor()
            .clamp(0.0, (self.rows - 1) as f32);
        (col as usize, row as usize)
    }

    /// The cell holding the point `(x, y)`; points outside are clamped to the nearest cell.
    pub fn index(&self, x: f32, y: f32) -> usize {
        let (col, row) = self.col_row(x, y);
        row * self.cols + col
    }

    /// Items `0..cells.len()` ordered by their cell (`cells[i]`), in index order within a cell,
    /// and per cell the start of its run: cell `c` holds `order[starts[c]..starts[c + 1]]`.
    pub fn bucket(&self, cells: &[usize]) -> (Vec<u32>, Vec<u32>) {
        let mut starts = vec![0u32; self.count() + 1];
        for &c in cells {
            starts[c + 1] += 1;
        }
        for c in 0..self.count() {
            starts[c + 1] += starts[c];
        }
        let mut fill = starts.clone();
        let mut order = vec![0u32; cells.len()];
        for (i, &c) in cells.iter().enumerate() {
            order[fill[c] as usize] = i as u32;
            fill[c] += 1;
        }
        (starts, order)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_fall_in_their_cell_and_outside_points_in_the_border() {
        let cells = Cells::over([0.0, 0.0, 10.0, 4.0], 2.0);
        assert_eq!((cells.cols, cells.rows), (5, 2));
        assert_eq!(cells.col_row(0.0, 0.0), (0, 0));
        assert_eq!(cells.col_row(3.9, 2.1), (1, 1));
        assert_eq!(cells.col_row(10.0, 4.0), (4, 1));
        assert_eq!(cells.col_row(-5.0, 99.0), (0, 1));
        assert_eq!(cells.index(3.9, 2.1), 6);
        assert_eq!(Cells::over([1.0, 1.0, 1.0, 1.0], 2.0).count(), 1);
    }

    #[test]
    fn buckets_keep_index_order_within_a_cell() {
        let cells = Cells::over([0.0, 0.0, 4.0, 2.0], 2.0);
        let (starts, order) = cells.bucket(&[1, 0, 1, 0]);
        assert_eq!(starts, [0, 2, 4]);
        assert_eq!(order, [1, 3, 0, 2]);
    }
}

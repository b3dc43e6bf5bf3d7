//! Least squares for the time fit: Householder QR (never the normal equations, which square the
//! condition number) and Lawson–Hanson non-negative least squares on top of it. Pure: slices in,
//! vectors out. Matrices are row-major `&[Vec<f64>]` (one row per observation).

/// Relative tolerance under which a column counts as a combination of the others: its part
/// outside their span is below this fraction of its own norm.
pub const DEPENDENT: f64 = 1e-9;

/// Least-squares solution of `a·x ≈ b` over the columns in `cols` (the other entries of the
/// result are 0), by Householder QR. `None` if those columns are linearly dependent (a diagonal
/// entry of R under [`DEPENDENT`] × its column's norm).
pub fn least_squares(a: &[Vec<f64>], b: &[f64], cols: &[usize]) -> Option<Vec<f64>> {
    let p = a.first().map_or(0, Vec::len);
    let (n, k) = (a.len(), cols.len());
    if k == 0 {
        return Some(vec![0.0; p]);
    }
    if n < k {
        return None;
    }
    // Column-major copy of the selected columns, and the right-hand side.
    let mut m: Vec<Vec<f64>> = cols.iter().map(|&j| a.iter().map(|r| r[j]).collect()).collect();
    let norms: Vec<f64> = m.iter().map(|c| norm(c)).collect();
    let mut y = b.to_vec();
    for j in 0..k {
        let alpha = norm(&m[j][j..]);
        if alpha <= DEPENDENT * norms[j] || norms[j] == 0.0 {
            return None;
        }
        let alpha = if m[j][j] > 0.0 { -alpha } else { alpha };
        // v = x − alpha·e1, reflected: H = I − 2vvᵀ/vᵀv.
        let mut v: Vec<f64> = m[j][j..].to_vec();
        v[0] -= alpha;
        let vv: f64 = v.iter().map(|x| x * x).sum();
        if vv == 0.0 {
            continue;
        }
        for col in m.iter_mut().skip(j) {
            let f = 2.0 * dot(&v, &col[j..]) / vv;
            col[j..].iter_mut().zip(&v).for_each(|(c, vi)| *c -= f * vi);
        }
        let f = 2.0 * dot(&v, &y[j..]) / vv;
        y[j..].iter_mut().zip(&v).for_each(|(c, vi)| *c -= f * vi);
    }
    // Back substitution on R (m[j][i] is R[i][j]).
    let mut x = vec![0.0; k];
    for i in (0..k).rev() {
        let s: f64 = (i + 1..k).map(|j| m[j][i] * x[j]).sum();
        x[i] = (y[i] - s) / m[i][i];
    }
    let mut out = vec![0.0; p];
    for (&j, v) in cols.iter().zip(x) {
        out[j] = v;
    }
    Some(out)
}

/// Non-negative least squares, `min ‖a·x − b‖` with `x ≥ 0` (Lawson & Hanson 1974, ch. 23):
/// columns enter the passive set by the largest gradient and leave when their coefficient
/// would turn negative. Columns that are all zero stay at 0. `None` if the passive columns
/// turn linearly dependent.
pub fn nnls(a: &[Vec<f64>], b: &[f64]) -> Option<Vec<f64>> {
    let p = a.first().map_or(0, Vec::len);
    let mut x = vec![0.0; p];
    let mut passive: Vec<bool> = vec![false; p];
    let scale = norm(b).max(f64::MIN_POSITIVE);
    for _ in 0..(3 * p + 10) {
        let residual: Vec<f64> = a.iter().zip(b).map(|(r, bi)| bi - dot(r, &x)).collect();
        let gradient: Vec<f64> = (0..p).map(|j| a.iter().zip(&residual).map(|(r, e)| r[j] * e).sum()).collect();
        let col_norm = |j: usize| norm(&a.iter().map(|r| r[j]).collect::<Vec<_>>());
        let candidate = (0..p)
            .filter(|&j| !passive[j] && col_norm(j) > 0.0)
            .map(|j| (j, gradient[j] / col_norm(j)))
            .filter(|&(_, g)| g > 1e-12 * scale)
            .max_by(|a, b| a.1.total_cmp(&b.1));
        let Some((enter, _)) = candidate else { return Some(x) };
        passive[enter] = true;
        loop {
            let cols: Vec<usize> = (0..p).filter(|&j| passive[j]).collect();
            let z = least_squares(a, b, &cols)?;
            if cols.iter().all(|&j| z[j] > 0.0) {
                x = z;
                break;
            }
            // Step from x towards z until the first passive coefficient reaches 0.
            let alpha = cols
                .iter()
                .filter(|&&j| z[j] <= 0.0)
                .map(|&j| x[j] / (x[j] - z[j]))
                .fold(f64::INFINITY, f64::min)
                .clamp(0.0, 1.0);
            for &j in &cols {
                x[j] += alpha * (z[j] - x[j]);
                if x[j] <= 1e-15 * (1.0 + z[j].abs()) {
                    x[j] = 0.0;
                    passive[j] = false;
                }
            }
            if !passive.iter().any(|&f| f) {
                break;
            }
        }
    }
    Some(x)
}

/// For each column of `a`: the fraction of its norm outside the span of the other columns
/// (1 = unrelated to them, 0 = a combination of them); `None` for a column that is all zero.
/// This is the relative pivot a column-pivoted QR would meet if it took that column last.
pub fn independent_fraction(a: &[Vec<f64>]) -> Vec<Option<f64>> {
    let p = a.first().map_or(0, Vec::len);
    (0..p)
        .map(|j| {
            let col: Vec<f64> = a.iter().map(|r| r[j]).collect();
            let own = norm(&col);
            if own == 0.0 {
                return None;
            }
            let others: Vec<usize> = (0..p).filter(|&i| i != j && a.iter().any(|r| r[i] != 0.0)).collect();
            let fitted = match least_squares(a, &col, &others) {
                Some(c) => a.iter().map(|r| dot(r, &c)).collect::<Vec<f64>>(),
                // The others are dependent among themselves: drop them one at a time.
                None => return Some(fraction_with_dependent_others(a, &col, &others)),
            };
            let rest: Vec<f64> = col.iter().zip(&fitted).map(|(c, f)| c - f).collect();
            Some(norm(&rest) / own)
        })
        .collect()
}

/// [`independent_fraction`] of `col` when the `others` are themselves dependent: regress on a
/// maximal independent subset of them (greedy, in order).
fn fraction_with_dependent_others(a: &[Vec<f64>], col: &[f64], others: &[usize]) -> f64 {
    let mut basis: Vec<usize> = Vec::new();
    for &i in others {
        basis.push(i);
        if least_squares(a, &vec![0.0; a.len()], &basis).is_none() {
            basis.pop();
        }
    }
    let c = least_squares(a, col, &basis).unwrap_or_else(|| vec![0.0; col.len()]);
    let rest: Vec<f64> = a.iter().zip(col).map(|(r, v)| v - dot(r, &c)).collect();
    norm(&rest) / norm(col)
}

/// Euclidean norm.
pub fn norm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// Dot product.
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix(rows: &[&[f64]]) -> Vec<Vec<f64>> {
        rows.iter().map(|r| r.to_vec()).collect()
    }

    #[test]
    fn qr_solves_an_exact_system_and_refuses_a_dependent_one() {
        let a = matrix(&[&[1.0, 2.0], &[3.0, 4.0], &[5.0, 7.0]]);
        let b: Vec<f64> = a.iter().map(|r| 2.0 * r[0] - 0.5 * r[1]).collect();
        let x = least_squares(&a, &b, &[0, 1]).unwrap();
        assert!((x[0] - 2.0).abs() < 1e-12 && (x[1] + 0.5).abs() < 1e-12, "{x:?}");
        let dependent = matrix(&[&[1.0, 2.0], &[3.0, 6.0], &[5.0, 10.0]]);
        assert!(least_squares(&dependent, &b, &[0, 1]).is_none());
    }

    #[test]
    fn qr_copes_with_columns_a_million_times_apart() {
        // The old normal-equation solver's absolute pivot tolerance never fired at this scale.
        let a: Vec<Vec<f64>> = (1..=20).map(|i| vec![f64::from(i) * 1e6, f64::from(i * i % 7), 1.0]).collect();
        let b: Vec<f64> = a.iter().map(|r| 3e-6 * r[0] + 0.25 * r[1] + 4.0 * r[2]).collect();
        let x = least_squares(&a, &b, &[0, 1, 2]).unwrap();
        assert!((x[0] / 3e-6 - 1.0).abs() < 1e-9 && (x[1] - 0.25).abs() < 1e-9 && (x[2] - 4.0).abs() < 1e-9);
    }

    #[test]
    fn nnls_clamps_a_negative_coefficient_to_zero() {
        // b = 1·col0 − 1·col1 exactly; with x ≥ 0 col1 must drop out.
        let a = matrix(&[&[1.0, 0.1], &[2.0, 0.5], &[3.0, 0.2], &[4.0, 0.9]]);
        let b: Vec<f64> = a.iter().map(|r| r[0] - r[1]).collect();
        let x = nnls(&a, &b).unwrap();
        assert!(x.iter().all(|&v| v >= 0.0), "{x:?}");
        assert_eq!(x[1], 0.0);
        // And it matches an unconstrained fit when that one is already non-negative.
        let b: Vec<f64> = a.iter().map(|r| r[0] + 2.0 * r[1]).collect();
        let x = nnls(&a, &b).unwrap();
        assert!((x[0] - 1.0).abs() < 1e-9 && (x[1] - 2.0).abs() < 1e-9, "{x:?}");
    }

    #[test]
    fn independent_fraction_finds_a_near_copy() {
        let a: Vec<Vec<f64>> = (1..=30)
            .map(|i| {
                let v = f64::from(i);
                vec![v, (v * 1.7).sin() + 2.0, 2.0 * v * (1.0 + 1e-6 * (v * 3.1).cos()), 0.0]
            })
            .collect();
        let f = independent_fraction(&a);
        assert!(f[1].unwrap() > 0.1, "{f:?}");
        assert!(f[0].unwrap() < 1e-4 && f[2].unwrap() < 1e-4, "{f:?}");
        assert_eq!(f[3], None);
    }
}

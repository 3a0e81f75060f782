import HapticsCore

/// Curves made playable: Ramer–Douglas–Peucker simplification, then split into Core Haptics'
/// 16-point parameter curves.
enum CurveSimplifier {
    /// Points per curve, as Apple's tooling writes them (AHAPLimits.recommendedControlPoints).
    static let pointsPerCurve = 16

    /// The fewest of `points` (ascending time) such that linear interpolation between them stays
    /// within `tolerance` (in value) of every point dropped; the first and last are kept.
    static func simplify(_ points: [(Double, Double)], tolerance: Double) -> [(Double, Double)] {
        guard points.count > 2, tolerance > 0 else { return points }
        var keep = [Bool](repeating: false, count: points.count)
        keep[0] = true
        keep[points.count - 1] = true
        var stack = [(0, points.count - 1)]
        while let (a, b) = stack.popLast() {
            guard b > a + 1 else { continue }
            let (ta, va) = points[a]
            let (tb, vb) = points[b]
            var worst = a
            var worstError = 0.0
            for i in (a + 1)..<b {
                let (t, v) = points[i]
                let f = tb > ta ? (t - ta) / (tb - ta) : 0
                let error = abs(v - (va + (vb - va) * f))
                if error > worstError {
                    worstError = error
                    worst = i
                }
            }
            if worstError > tolerance {
                keep[worst] = true
                stack.append((a, worst))
                stack.append((worst, b))
            }
        }
        return points.indices.filter { keep[$0] }.map { points[$0] }
    }

    /// `points` (absolute times) as consecutive curves of at most 16 points, each starting where
    /// the previous ended, so the control follows one unbroken line.
    static func curves(_ id: DynamicParameterID, _ points: [(Double, Double)]) -> [ParameterCurve] {
        var result: [ParameterCurve] = []
        var start = 0
        while start < points.count - 1 || (start == 0 && points.count == 1) {
            let end = min(points.count, start + pointsPerCurve)
            let origin = points[start].0
            result.append(
                ParameterCurve(
                    id, time: origin,
                    controlPoints: points[start..<end].map {
                        .init(
                            time: (($0.0 - origin) * 10_000).rounded() / 10_000,
                            value: Float(($0.1 * 1000).rounded() / 1000))
                    }))
            if end == points.count { break }
            start = end - 1
        }
        return result
    }
}

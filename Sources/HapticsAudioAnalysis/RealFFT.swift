#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The power spectrum of a real frame of one power-of-two size, in single precision: a complex FFT
/// of half the size on the even/odd samples, then the split that separates the two halves.
///
/// Everything is allocated in `init`; ``power(_:into:)`` allocates nothing.
final class RealFFT {
    /// Points per frame (a power of two >= 4).
    let size: Int
    private let half: Int
    private let cosines: UnsafeMutablePointer<Float>
    private let sines: UnsafeMutablePointer<Float>
    /// e^(-2πik/size) for the split, k in 0..<half.
    private let splitCos: UnsafeMutablePointer<Float>
    private let splitSin: UnsafeMutablePointer<Float>
    private let reversed: UnsafeMutablePointer<Int32>
    private let re: UnsafeMutablePointer<Float>
    private let im: UnsafeMutablePointer<Float>

    init(size: Int) {
        precondition(size >= 4 && size & (size - 1) == 0)
        self.size = size
        half = size / 2
        cosines = .allocate(capacity: half)
        sines = .allocate(capacity: half)
        splitCos = .allocate(capacity: half)
        splitSin = .allocate(capacity: half)
        reversed = .allocate(capacity: half)
        re = .allocate(capacity: half)
        im = .allocate(capacity: half)
        for k in 0..<half {
            cosines[k] = Float(cos(2 * Double.pi * Double(k) / Double(half)))
            sines[k] = Float(-sin(2 * Double.pi * Double(k) / Double(half)))
            splitCos[k] = Float(cos(2 * Double.pi * Double(k) / Double(size)))
            splitSin[k] = Float(-sin(2 * Double.pi * Double(k) / Double(size)))
        }
        let bits = half.trailingZeroBitCount
        for i in 0..<half {
            var r = 0
            for b in 0..<bits where i & (1 << b) != 0 { r |= 1 << (bits - 1 - b) }
            reversed[i] = Int32(r)
        }
    }

    deinit {
        for p in [cosines, sines, splitCos, splitSin, re, im] { p.deallocate() }
        reversed.deallocate()
    }

    /// |X[k]|² for k in 0...size/2 of the `size` samples at `frame`, written to `out` (size/2 + 1 values).
    func power(_ frame: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>) {
        for i in 0..<half {
            let j = Int(reversed[i])
            re[j] = frame[2 &* i]
            im[j] = frame[2 &* i &+ 1]
        }
        var length = 2
        while length <= half {
            let h = length / 2
            let stride = half / length
            var start = 0
            while start < half {
                var w = 0
                for k in start..<(start &+ h) {
                    let wr = cosines[w]
                    let wi = sines[w]
                    let b = k &+ h
                    let tr = re[b] * wr - im[b] * wi
                    let ti = re[b] * wi + im[b] * wr
                    re[b] = re[k] - tr
                    im[b] = im[k] - ti
                    re[k] += tr
                    im[k] += ti
                    w &+= stride
                }
                start &+= length
            }
            length &<<= 1
        }
        // Split: X[k] = E[k] + e^(-2πik/N) O[k], E and O from Z[k] and conj(Z[half-k]).
        out[0] = (re[0] + im[0]) * (re[0] + im[0])
        out[half] = (re[0] - im[0]) * (re[0] - im[0])
        for k in 1..<half {
            let zr = re[k]
            let zi = im[k]
            let cr = re[half &- k]
            let ci = -im[half &- k]
            let er = 0.5 * (zr + cr)
            let ei = 0.5 * (zi + ci)
            // O = (Z - conj(Z[half-k])) / (2i)
            let dr = zr - cr
            let di = zi - ci
            let or = 0.5 * di
            let oi = -0.5 * dr
            let wr = splitCos[k]
            let wi = splitSin[k]
            let xr = er + or * wr - oi * wi
            let xi = ei + or * wi + oi * wr
            out[k] = xr * xr + xi * xi
        }
    }
}

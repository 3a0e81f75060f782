#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The power spectrum of a real frame of one power-of-two size, in single precision: a complex FFT
/// of half the size on the even/odd samples (radix-4 passes, one radix-2 pass first when the
/// half size is an odd power of two), then the split that separates the two halves.
///
/// Everything is allocated in `init`, twiddles per pass laid out in the order the passes read
/// them; ``power(_:into:)`` allocates nothing.
final class RealFFT {
    /// Points per frame (a power of two >= 4).
    let size: Int
    private let half: Int
    /// Per radix-4 pass of quarter length m: W^j, W^2j, W^3j (W = e^(-2πi/4m)), j in 0..<m, as
    /// six consecutive runs of m values (re1, im1, re2, im2, re3, im3).
    private let twiddles: UnsafeMutablePointer<Float>
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
        var total = 0
        var m = half.trailingZeroBitCount % 2 == 1 ? 2 : 1
        while 4 * m <= half {
            total += 6 * m
            m *= 4
        }
        twiddles = .allocate(capacity: max(1, total))
        splitCos = .allocate(capacity: half)
        splitSin = .allocate(capacity: half)
        reversed = .allocate(capacity: half)
        re = .allocate(capacity: half)
        im = .allocate(capacity: half)
        var at = 0
        m = half.trailingZeroBitCount % 2 == 1 ? 2 : 1
        while 4 * m <= half {
            for j in 0..<m {
                for r in 1...3 {
                    let angle = -2 * Double.pi * Double(r * j) / Double(4 * m)
                    twiddles[at + (2 * r - 2) * m + j] = Float(cos(angle))
                    twiddles[at + (2 * r - 1) * m + j] = Float(sin(angle))
                }
            }
            at += 6 * m
            m *= 4
        }
        for k in 0..<half {
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
        for p in [twiddles, splitCos, splitSin, re, im] { p.deallocate() }
        reversed.deallocate()
    }

    /// |X[k]|² for k in 0...size/2 of the `size` samples at `frame`, written to `out` (size/2 + 1 values).
    func power(_ frame: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>) {
        let half = self.half
        let re = self.re
        let im = self.im
        var m = 1
        if half.trailingZeroBitCount % 2 == 1 {
            // Radix-2 pass of length 2 (no twiddles) as the samples are put in bit-reversed
            // order: slots k and k + 1 (k even) hold complex samples i and i + half/2.
            let other = half / 2
            var k = 0
            while k < half {
                let i = Int(reversed[k])
                let ar = frame[2 &* i]
                let ai = frame[2 &* i &+ 1]
                let br = frame[2 &* (i &+ other)]
                let bi = frame[2 &* (i &+ other) &+ 1]
                re[k] = ar + br
                im[k] = ai + bi
                re[k &+ 1] = ar - br
                im[k &+ 1] = ai - bi
                k &+= 2
            }
            m = 2
        } else {
            for i in 0..<half {
                let j = Int(reversed[i])
                re[j] = frame[2 &* i]
                im[j] = frame[2 &* i &+ 1]
            }
        }
        var table = twiddles
        while 4 &* m <= half {
            // Bit-reversed order holds the quarter DFTs of x[4n], x[4n+2], x[4n+1], x[4n+3] at
            // offsets 0, m, 2m, 3m of each group.
            let w1r = table
            let w1i = table + m
            let w2r = table + 2 &* m
            let w2i = table + 3 &* m
            let w3r = table + 4 &* m
            let w3i = table + 5 &* m
            var start = 0
            while start < half {
                let p0 = start
                let p1 = start &+ m
                let p2 = start &+ 2 &* m
                let p3 = start &+ 3 &* m
                if m & 3 == 0 {
                    Self.radix4Vector(re, im, p0, m, table)
                    start &+= 4 &* m
                    continue
                }
                for j in 0..<m {
                    let ar = re[p0 &+ j]
                    let ai = im[p0 &+ j]
                    // x[4n+2] part (offset m) takes W^2j, x[4n+1] (offset 2m) W^j, x[4n+3] W^3j.
                    let br = re[p1 &+ j]
                    let bi = im[p1 &+ j]
                    let cr = re[p2 &+ j]
                    let ci = im[p2 &+ j]
                    let dr = re[p3 &+ j]
                    let di = im[p3 &+ j]
                    let t1r = cr * w1r[j] - ci * w1i[j]
                    let t1i = cr * w1i[j] + ci * w1r[j]
                    let t2r = br * w2r[j] - bi * w2i[j]
                    let t2i = br * w2i[j] + bi * w2r[j]
                    let t3r = dr * w3r[j] - di * w3i[j]
                    let t3i = dr * w3i[j] + di * w3r[j]
                    let s02r = ar + t2r
                    let s02i = ai + t2i
                    let d02r = ar - t2r
                    let d02i = ai - t2i
                    let s13r = t1r + t3r
                    let s13i = t1i + t3i
                    let d13r = t1r - t3r
                    let d13i = t1i - t3i
                    re[p0 &+ j] = s02r + s13r
                    im[p0 &+ j] = s02i + s13i
                    re[p2 &+ j] = s02r - s13r
                    im[p2 &+ j] = s02i - s13i
                    // X1 = d02 - i·d13, X3 = d02 + i·d13.
                    re[p1 &+ j] = d02r + d13i
                    im[p1 &+ j] = d02i - d13r
                    re[p3 &+ j] = d02r - d13i
                    im[p3 &+ j] = d02i + d13r
                }
                start &+= 4 &* m
            }
            table += 6 &* m
            m &*= 4
        }
        Self.split(re, im, half, splitCos, splitSin, out)
    }

    /// One radix-4 group (quarter length m, a multiple of 4) four points at a time: the scalar
    /// loop in ``power(_:into:)`` on SIMD4 lanes, the same operations in the same order.
    @inline(__always)
    private static func radix4Vector(
        _ re: UnsafeMutablePointer<Float>, _ im: UnsafeMutablePointer<Float>, _ p0: Int, _ m: Int,
        _ table: UnsafeMutablePointer<Float>
    ) {
        typealias V = SIMD4<Float>
        let r = UnsafeMutableRawPointer(re + p0)
        let i = UnsafeMutableRawPointer(im + p0)
        let w = UnsafeRawPointer(table)
        let step = m &* 4  // bytes per quarter
        var j = 0
        while j < m {
            let o = j &* 4
            let ar = r.loadUnaligned(fromByteOffset: o, as: V.self)
            let ai = i.loadUnaligned(fromByteOffset: o, as: V.self)
            let br = r.loadUnaligned(fromByteOffset: o &+ step, as: V.self)
            let bi = i.loadUnaligned(fromByteOffset: o &+ step, as: V.self)
            let cr = r.loadUnaligned(fromByteOffset: o &+ 2 &* step, as: V.self)
            let ci = i.loadUnaligned(fromByteOffset: o &+ 2 &* step, as: V.self)
            let dr = r.loadUnaligned(fromByteOffset: o &+ 3 &* step, as: V.self)
            let di = i.loadUnaligned(fromByteOffset: o &+ 3 &* step, as: V.self)
            let w1r = w.loadUnaligned(fromByteOffset: o, as: V.self)
            let w1i = w.loadUnaligned(fromByteOffset: o &+ step, as: V.self)
            let w2r = w.loadUnaligned(fromByteOffset: o &+ 2 &* step, as: V.self)
            let w2i = w.loadUnaligned(fromByteOffset: o &+ 3 &* step, as: V.self)
            let w3r = w.loadUnaligned(fromByteOffset: o &+ 4 &* step, as: V.self)
            let w3i = w.loadUnaligned(fromByteOffset: o &+ 5 &* step, as: V.self)
            let t1r = cr * w1r - ci * w1i
            let t1i = cr * w1i + ci * w1r
            let t2r = br * w2r - bi * w2i
            let t2i = br * w2i + bi * w2r
            let t3r = dr * w3r - di * w3i
            let t3i = dr * w3i + di * w3r
            let s02r = ar + t2r
            let s02i = ai + t2i
            let d02r = ar - t2r
            let d02i = ai - t2i
            let s13r = t1r + t3r
            let s13i = t1i + t3i
            let d13r = t1r - t3r
            let d13i = t1i - t3i
            r.storeBytes(of: s02r + s13r, toByteOffset: o, as: V.self)
            i.storeBytes(of: s02i + s13i, toByteOffset: o, as: V.self)
            r.storeBytes(of: s02r - s13r, toByteOffset: o &+ 2 &* step, as: V.self)
            i.storeBytes(of: s02i - s13i, toByteOffset: o &+ 2 &* step, as: V.self)
            r.storeBytes(of: d02r + d13i, toByteOffset: o &+ step, as: V.self)
            i.storeBytes(of: d02i - d13r, toByteOffset: o &+ step, as: V.self)
            r.storeBytes(of: d02r - d13i, toByteOffset: o &+ 3 &* step, as: V.self)
            i.storeBytes(of: d02i + d13r, toByteOffset: o &+ 3 &* step, as: V.self)
            j &+= 4
        }
    }

    /// X[k] from the half-size transform Z, as |X[k]|² into `out`.
    @inline(__always)
    private static func split(
        _ re: UnsafeMutablePointer<Float>, _ im: UnsafeMutablePointer<Float>, _ half: Int,
        _ splitCos: UnsafeMutablePointer<Float>, _ splitSin: UnsafeMutablePointer<Float>,
        _ out: UnsafeMutablePointer<Float>
    ) {
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

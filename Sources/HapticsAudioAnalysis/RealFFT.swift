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
                if m == 2, start &+ 16 <= half {
                    Self.radix4Pairs(re, im, p0, table)
                    start &+= 16
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
            let x = butterfly(
                (ar, ai), (br, bi), (cr, ci), (dr, di), w1: (w1r, w1i), w2: (w2r, w2i), w3: (w3r, w3i))
            r.storeBytes(of: x.0.0, toByteOffset: o, as: V.self)
            i.storeBytes(of: x.0.1, toByteOffset: o, as: V.self)
            r.storeBytes(of: x.1.0, toByteOffset: o &+ step, as: V.self)
            i.storeBytes(of: x.1.1, toByteOffset: o &+ step, as: V.self)
            r.storeBytes(of: x.2.0, toByteOffset: o &+ 2 &* step, as: V.self)
            i.storeBytes(of: x.2.1, toByteOffset: o &+ 2 &* step, as: V.self)
            r.storeBytes(of: x.3.0, toByteOffset: o &+ 3 &* step, as: V.self)
            i.storeBytes(of: x.3.1, toByteOffset: o &+ 3 &* step, as: V.self)
            j &+= 4
        }
    }

    /// The radix-4 butterfly of ``power(_:into:)``'s scalar loop on SIMD4 lanes, the same
    /// operations in the same order: inputs at offsets 0, m, 2m, 3m (the quarter DFTs of x[4n],
    /// x[4n+2], x[4n+1], x[4n+3]), outputs X0...X3 for those offsets.
    @inline(__always)
    private static func butterfly(
        _ a: (SIMD4<Float>, SIMD4<Float>), _ b: (SIMD4<Float>, SIMD4<Float>), _ c: (SIMD4<Float>, SIMD4<Float>),
        _ d: (SIMD4<Float>, SIMD4<Float>), w1: (SIMD4<Float>, SIMD4<Float>), w2: (SIMD4<Float>, SIMD4<Float>),
        w3: (SIMD4<Float>, SIMD4<Float>)
    ) -> (
        (SIMD4<Float>, SIMD4<Float>), (SIMD4<Float>, SIMD4<Float>), (SIMD4<Float>, SIMD4<Float>),
        (SIMD4<Float>, SIMD4<Float>)
    ) {
        let t1r = c.0 * w1.0 - c.1 * w1.1
        let t1i = c.0 * w1.1 + c.1 * w1.0
        let t2r = b.0 * w2.0 - b.1 * w2.1
        let t2i = b.0 * w2.1 + b.1 * w2.0
        let t3r = d.0 * w3.0 - d.1 * w3.1
        let t3i = d.0 * w3.1 + d.1 * w3.0
        let s02r = a.0 + t2r
        let s02i = a.1 + t2i
        let d02r = a.0 - t2r
        let d02i = a.1 - t2i
        let s13r = t1r + t3r
        let s13i = t1i + t3i
        let d13r = t1r - t3r
        let d13i = t1i - t3i
        // X1 = d02 - i·d13, X3 = d02 + i·d13.
        return (
            (s02r + s13r, s02i + s13i), (d02r + d13i, d02i - d13r), (s02r - s13r, s02i - s13i),
            (d02r - d13i, d02i + d13r)
        )
    }

    /// Two radix-4 groups of quarter length 2 (16 points from `p0`) on SIMD4 lanes: lanes 0-1 are
    /// the first group's j = 0, 1, lanes 2-3 the second's.
    @inline(__always)
    private static func radix4Pairs(
        _ re: UnsafeMutablePointer<Float>, _ im: UnsafeMutablePointer<Float>, _ p0: Int,
        _ table: UnsafeMutablePointer<Float>
    ) {
        typealias V = SIMD4<Float>
        let r = UnsafeMutableRawPointer(re + p0)
        let i = UnsafeMutableRawPointer(im + p0)
        // Per group: [a0 a1 b0 b1] at 0, [c0 c1 d0 d1] at 16 bytes; the second group 32 bytes on.
        func load(_ p: UnsafeMutableRawPointer) -> (V, V, V, V) {
            let lo1 = p.loadUnaligned(fromByteOffset: 0, as: V.self)
            let hi1 = p.loadUnaligned(fromByteOffset: 16, as: V.self)
            let lo2 = p.loadUnaligned(fromByteOffset: 32, as: V.self)
            let hi2 = p.loadUnaligned(fromByteOffset: 48, as: V.self)
            return (
                V(lowHalf: lo1.lowHalf, highHalf: lo2.lowHalf), V(lowHalf: lo1.highHalf, highHalf: lo2.highHalf),
                V(lowHalf: hi1.lowHalf, highHalf: hi2.lowHalf), V(lowHalf: hi1.highHalf, highHalf: hi2.highHalf)
            )
        }
        func store(_ x: V, _ y: V, _ z: V, _ w: V, _ p: UnsafeMutableRawPointer) {
            p.storeBytes(of: V(lowHalf: x.lowHalf, highHalf: y.lowHalf), toByteOffset: 0, as: V.self)
            p.storeBytes(of: V(lowHalf: z.lowHalf, highHalf: w.lowHalf), toByteOffset: 16, as: V.self)
            p.storeBytes(of: V(lowHalf: x.highHalf, highHalf: y.highHalf), toByteOffset: 32, as: V.self)
            p.storeBytes(of: V(lowHalf: z.highHalf, highHalf: w.highHalf), toByteOffset: 48, as: V.self)
        }
        let (ar, br, cr, dr) = load(r)
        let (ai, bi, ci, di) = load(i)
        func twice(_ k: Int) -> V { V(table[k], table[k &+ 1], table[k], table[k &+ 1]) }
        let x = butterfly(
            (ar, ai), (br, bi), (cr, ci), (dr, di), w1: (twice(0), twice(2)), w2: (twice(4), twice(6)),
            w3: (twice(8), twice(10)))
        store(x.0.0, x.1.0, x.2.0, x.3.0, r)
        store(x.0.1, x.1.1, x.2.1, x.3.1, i)
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
        // Four k at a time, Z[half-k] read as four values below and reversed: the scalar loop's
        // operations in the same order.
        typealias V = SIMD4<Float>
        var k = 1
        while k &+ 4 <= half {
            let zr = UnsafeRawPointer(re + k).loadUnaligned(as: V.self)
            let zi = UnsafeRawPointer(im + k).loadUnaligned(as: V.self)
            let mr = UnsafeRawPointer(re + (half &- k &- 3)).loadUnaligned(as: V.self)
            let mi = UnsafeRawPointer(im + (half &- k &- 3)).loadUnaligned(as: V.self)
            let cr = V(mr[3], mr[2], mr[1], mr[0])
            let ci = -V(mi[3], mi[2], mi[1], mi[0])
            let er = 0.5 * (zr + cr)
            let ei = 0.5 * (zi + ci)
            let dr = zr - cr
            let di = zi - ci
            let or = 0.5 * di
            let oi = -0.5 * dr
            let wr = UnsafeRawPointer(splitCos + k).loadUnaligned(as: V.self)
            let wi = UnsafeRawPointer(splitSin + k).loadUnaligned(as: V.self)
            let xr = er + or * wr - oi * wi
            let xi = ei + or * wi + oi * wr
            UnsafeMutableRawPointer(out + k).storeBytes(of: xr * xr + xi * xi, as: V.self)
            k &+= 4
        }
        while k < half {
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
            k &+= 1
        }
    }
}

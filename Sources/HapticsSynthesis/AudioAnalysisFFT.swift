#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An iterative, in-place radix-2 complex FFT of one fixed power-of-two size.
///
/// Twiddle factors and the bit-reversal permutation are computed once in `init`;
/// ``forward(real:imaginary:)`` then allocates nothing.
///
/// ```swift
/// let fft = RadixTwoFFT(size: 1024)
/// fft.forward(real: re, imaginary: im)   // re/im: 1024 Doubles each, transformed in place
/// ```
struct RadixTwoFFT: Sendable {
    /// Points in the transform, a power of two >= 2.
    let size: Int
    /// cos(2πk/size) for k in 0..<size/2.
    private let cosines: [Double]
    /// -sin(2πk/size) for k in 0..<size/2 (forward transform sign).
    private let sines: [Double]
    /// Index pairs (i, j), i < j, swapped by the bit-reversal permutation.
    private let swaps: [(Int32, Int32)]

    init(size: Int) {
        precondition(size >= 2 && size & (size - 1) == 0, "FFT size must be a power of two >= 2")
        self.size = size
        let half = size / 2
        cosines = (0..<half).map { cos(2 * Double.pi * Double($0) / Double(size)) }
        sines = (0..<half).map { -sin(2 * Double.pi * Double($0) / Double(size)) }
        let bits = size.trailingZeroBitCount
        var swaps: [(Int32, Int32)] = []
        for i in 0..<size {
            let j = Int(UInt(i).bitReversed(bits: bits))
            if i < j { swaps.append((Int32(i), Int32(j))) }
        }
        self.swaps = swaps
    }

    /// Replaces (`real`, `imaginary`), `size` values each, with their discrete Fourier transform
    /// X[k] = Σ x[n]·e^(-2πikn/size), unnormalised.
    ///
    /// - Complexity: O(*n* log *n*), no allocation.
    func forward(real: UnsafeMutablePointer<Double>, imaginary: UnsafeMutablePointer<Double>) {
        for (i, j) in swaps {
            let (a, b) = (Int(i), Int(j))
            swap(&real[a], &real[b])
            swap(&imaginary[a], &imaginary[b])
        }
        cosines.withUnsafeBufferPointer { cosines in
            sines.withUnsafeBufferPointer { sines in
                var length = 2
                while length <= size {
                    let half = length / 2
                    let stride = size / length
                    var start = 0
                    while start < size {
                        for k in 0..<half {
                            let wr = cosines[k &* stride]
                            let wi = sines[k &* stride]
                            let top = start &+ k
                            let bottom = top &+ half
                            let br = real[bottom]
                            let bi = imaginary[bottom]
                            let tr = br * wr - bi * wi
                            let ti = br * wi + bi * wr
                            real[bottom] = real[top] - tr
                            imaginary[bottom] = imaginary[top] - ti
                            real[top] += tr
                            imaginary[top] += ti
                        }
                        start &+= length
                    }
                    length &<<= 1
                }
            }
        }
    }
}

extension UInt {
    /// The low `bits` bits of `self` in reverse order.
    fileprivate func bitReversed(bits: Int) -> UInt {
        bitSwapped() >> UInt(UInt.bitWidth - bits)
    }

    private func bitSwapped() -> UInt {
        var value = self
        var result: UInt = 0
        for _ in 0..<UInt.bitWidth {
            result = result << 1 | value & 1
            value >>= 1
        }
        return result
    }
}

import Testing

@testable import HapticsEngine

#if canImport(Glibc)
    import Glibc
#endif

/// The WAV writer hands each block to the system as three runs (silence, sound, silence) in one
/// `writev`; a pipe or a signal may take part of it, and the rest must follow in order.
@Suite struct OutputFileTests {
    /// Runs `a`, `b`, `c` through a gather that takes at most `limit` bytes a call.
    static func written(_ a: [UInt8], _ b: [UInt8], _ c: [UInt8], limit: Int) throws(RenderError) -> ([UInt8], Int) {
        var out: [UInt8] = []
        var calls = 0
        let runs = [a, b, c].map { run in
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: run.count, alignment: 1)
            copy.copyBytes(from: run)
            return copy
        }
        defer { runs.forEach { $0.deallocate() } }
        try OutputFile.write(
            UnsafeRawBufferPointer(runs[0]), UnsafeRawBufferPointer(runs[1]), UnsafeRawBufferPointer(runs[2]),
            to: "t.wav"
        ) { vectors, count throws(RenderError) in
            calls += 1
            var left = limit
            for k in 0..<Int(count) where left > 0 {
                let n = min(left, vectors[k].iov_len)
                if n > 0 {
                    out += UnsafeRawBufferPointer(start: vectors[k].iov_base, count: n)
                }
                left -= n
            }
            return limit - left
        }
        return (out, calls)
    }

    @Test(
        "Three runs arrive whole and in order however little each call takes",
        arguments: [1, 2, 3, 5, 7, 64, 1_000])
    func runsArriveInOrder(limit: Int) throws {
        let a = (0..<13).map { UInt8($0) }
        let b = (0..<29).map { UInt8(100 + $0) }
        let c = (0..<5).map { UInt8(200 + $0) }
        for (x, y, z) in [
            (a, b, c), ([], b, []), (a, [], c), ([], [], c), (a, [], []), ([UInt8](), [UInt8](), [UInt8]()),
        ] {
            let (out, calls) = try Self.written(x, y, z, limit: limit)
            #expect(out == x + y + z)
            let total = x.count + y.count + z.count
            #expect(calls == (total + limit - 1) / limit, "one call per \(limit) bytes, none when empty")
        }
    }

    @Test("A call that takes nothing is an error naming the file, not an endless loop")
    func takingNothingFails() throws {
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        // Nothing to write: no call is made, and nothing fails.
        var calls = 0
        try OutputFile.write(empty, empty, empty, to: "t.wav") { _, _ throws(RenderError) in
            calls += 1
            return 0
        }
        #expect(calls == 0)
        // Bytes to write, and a call that takes none of them.
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: 4, alignment: 1)
        defer { bytes.deallocate() }
        bytes.initializeMemory(as: UInt8.self, repeating: 7)
        do {
            try OutputFile.write(UnsafeRawBufferPointer(bytes), empty, empty, to: "t.wav") { _, _ throws(RenderError) in
                0
            }
            Issue.record("no error")
        } catch {
            #expect(error.description == "t.wav: write failed: nothing written")
        }
    }
}

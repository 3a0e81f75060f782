import Synchronization

/// A mono clip played while it is still being read: a ring of frames that one thread fills
/// (``write(_:)``) and the render loop reads, without a lock or an allocation on the render side.
/// Memory is the ring, not the clip, so a sound of any length plays beside its haptics.
///
/// The render side reads a frame only once the writer has published it (an acquiring load once
/// a block) and says, after each block, the earliest frame it may still read; the writer never
/// overwrites that frame or a later one. A frame not yet written plays as silence (the writer
/// fell behind: a feed underrun), never a wait.
public final class ClipFeed: @unchecked Sendable {  // the ring is shared by design; see above
    /// Frames per second.
    public let sampleRate: Int
    /// Frames in the whole clip.
    public let frames: Int
    /// Frames the ring holds (a power of 2).
    public let capacity: Int
    let ring: UnsafeMutableBufferPointer<Float>
    /// Frames written so far (the next frame to write).
    let written = Atomic<Int>(0)
    /// The earliest frame the render side may still read.
    let needed = Atomic<Int>(0)

    public init(sampleRate: Int, frames: Int, capacity: Int = 1 << 18) {
        precondition(sampleRate > 0 && frames >= 0 && capacity > 4 && capacity & (capacity - 1) == 0)
        self.sampleRate = sampleRate
        self.frames = frames
        self.capacity = capacity
        ring = .allocate(capacity: capacity)
        ring.initialize(repeating: 0)
    }

    deinit { ring.deallocate() }

    /// Before playback: the clip is to be read from `frame` on (the frames before it are never
    /// written; a player starting later in the clip reads from there).
    public func start(at frame: Int) {
        let first = min(max(0, frame), frames)
        written.store(first, ordering: .releasing)
        needed.store(first, ordering: .releasing)
    }

    /// Frames written so far.
    public var framesWritten: Int { written.load(ordering: .acquiring) }

    /// The earliest frame the render side may still read: how far playback has got in the clip
    /// (a frame or two behind the frame being played).
    public var framesReleased: Int { needed.load(ordering: .acquiring) }

    /// Frames ``write(_:)`` would take now.
    public var room: Int {
        let next = written.load(ordering: .relaxed)
        let used = next - max(0, needed.load(ordering: .acquiring))
        return max(0, min(capacity - used, frames - next))
    }

    /// Copies as many of `block`'s frames as there is room for; returns how many. One writer.
    public func write(_ block: UnsafeBufferPointer<Float>) -> Int {
        let next = written.load(ordering: .relaxed)
        let count = min(room, block.count)
        let mask = capacity - 1
        for i in 0..<count { ring[(next + i) & mask] = block[i] }
        written.store(next + count, ordering: .releasing)
        return count
    }

    /// The render side: frames before `frame` will not be read again.
    @inline(__always)
    func release(before frame: Int) { needed.store(frame, ordering: .releasing) }
}

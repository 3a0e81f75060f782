import Glibc
import HapticsCore
@_spi(Tooling) import HapticsEngine
import SystemPackage
import Testing

@Suite struct SystemCallTests {
    @Test func aFailureKeepsTheCallThePathAndErrno() {
        #expect {
            try systemCall("fsync", path: "/nowhere") { fsync(-1) }
        } throws: { error in
            guard let error = error as? SystemCallError else { return false }
            return error.call == "fsync" && error.path == "/nowhere" && error.errno == .badFileDescriptor
                && error.description == "fsync /nowhere: Bad file descriptor (errno 9)"
        }
    }

    @Test func anInterruptedCallIsRetried() throws {
        var attempts = 0
        let result = try systemCall("read") { () -> Int32 in
            attempts += 1
            if attempts < 3 {
                errno = EINTR
                return -1
            }
            return 7
        }
        #expect(result == 7 && attempts == 3)
    }

    @Test func aRenderThatCannotWriteSaysWhyAndKeepsTheCause() throws {
        let file = PatternFile(
            path: "tap.ahap", pattern: HapticPattern(elements: [.event(HapticEvent(time: 0, type: .hapticTransient))]))
        #expect {
            try WAVFileRender.render(file, to: "/proc/haptic-cannot-create-here.wav", options: RenderOptions())
        } throws: { error in
            guard let error = error as? RenderError, let cause = error.cause else { return false }
            return cause.call == "open"
                && error.description.hasPrefix("/proc/haptic-cannot-create-here.wav: cannot create file: ")
        }
    }
}

import Foundation
import Testing
import _ToolTestSupport

/// The CPU load the loaded-playback test and `haptic-bench --load` run: it must really start the
/// loops, and `stop()` must leave no process behind, not even a zombie.
@Suite struct BusyLoopsTests {
    @Test func stopKillsAndReapsEveryLoopEvenWithSIGTERMBlocked() throws {
        // Spawn with SIGTERM blocked, as a child of a test or worker thread may be.
        var blocked = sigset_t()
        var previous = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        let loops: BusyLoops
        do {
            defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
            loops = try BusyLoops(count: 2)
        }
        let pids = loops.processIdentifiers
        #expect(pids.count == 2)
        #expect(Set(pids).count == 2)
        for pid in pids {
            #expect(kill(pid, 0) == 0, "loop \(pid) is not running")
            // After the parenthesised command name in /proc/PID/stat: the state, then the parent's ID.
            // (Not cmdline: it reads empty for a moment while the child is still inside execve.)
            let stat = try FileHandle(forReadingFrom: URL(filePath: "/proc/\(pid)/stat")).readToEnd() ?? Data()
            let fields = String(decoding: stat, as: UTF8.self).split(separator: ")").last?.split(separator: " ")
            #expect(fields?.dropFirst().first.flatMap { Int32($0) } == getpid(), "loop \(pid) is not our child")
            #expect(fields?.first != "Z", "loop \(pid) has already exited")
        }

        loops.stop()

        #expect(loops.processIdentifiers.isEmpty)
        for pid in pids {
            // A killed but unreaped child is a zombie, which kill(pid, 0) still finds.
            #expect(kill(pid, 0) == -1 && errno == ESRCH, "loop \(pid) is still there after stop()")
        }
        loops.stop()  // a second stop does nothing
    }

    @Test func zeroLoopsStartNothing() throws {
        let loops = try BusyLoops(count: 0)
        #expect(loops.processIdentifiers.isEmpty)
    }
}

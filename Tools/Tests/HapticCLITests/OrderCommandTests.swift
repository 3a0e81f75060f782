import CupcakeCorner
import Foundation
import HapticsSynthesis
import Testing
import _ToolTestSupport

@Suite(.serialized) struct OrderCommandTests {
    static let address = "name Ada\nstreet 1 Infinite Loop\ncity Cupertino\nzip 95014\n"

    @Test func scriptChecksOutAndStoresTheOrder() async throws {
        let scratch = try ScratchFolder()
        let script = try scratch.write(
            "order.txt", "quantity 6\ntype Strawberry\nspecial on\nsprinkles on\n" + Self.address + "submit\n")
        let result = try await Haptic.run([
            "order", "--store", scratch.path("store"), "--log", scratch.path("log.jsonl"), "--device", "null",
            "--script", script,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.output.hasPrefix("Your order for 6x strawberry cupcakes is on its way! Total $15.50. Order "))
        let stored = try OrderStore(directory: scratch.url.appending(path: "store")).load()
        #expect(
            stored.orders.count == 1 && stored.orders[0].order.addSprinkles
                && stored.orders[0].cost == Decimal(string: "15.5")!)
        let log = try EventLogReader.read(path: scratch.path("log.jsonl"))
        #expect(log.events.compactMap(\.feedback) == ["increase", "selection", "selection", "selection", "success"])
    }

    @Test func aBadLineStopsTheWholeScriptBeforeAnythingIsSubmitted() async throws {
        let scratch = try ScratchFolder()
        let script = try scratch.write("order.txt", Self.address + "submit\nquantity lots\n")
        let result = try await Haptic.run([
            "order", "--store", scratch.path("store"), "--device", "null", "--script", script,
        ])
        #expect(result.status == 1)
        #expect(result.stderr == "\(script):6: error: quantity needs +1, -1 or a number of cakes 3...20 (got 'lots')\n")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("store/orders.jsonl")))
    }

    @Test func aRefusedCheckoutExitsWithStatusOne() async throws {
        let scratch = try ScratchFolder()
        let result = try await Haptic.run(
            ["order", "--store", scratch.path("store"), "--device", "null", "--script", "-", "--name", "Ada"],
            input: Array("submit\n".utf8))
        #expect(result.status == 1)
        #expect(
            result.stderr.contains(
                "-:1: error: checkout refused: please fill in the address first (missing: street, city, zip)"))
    }

    /// Each feedback of the rendered replay starts where the log says, within 1 ms.
    @Test func replayPlacesEveryFeedbackAtItsLoggedTime() async throws {
        let scratch = try ScratchFolder()
        let script = try scratch.write(
            "order.txt",
            "quantity +1\nwait 0.3\ntype Chocolate\nwait 0.25\nquantity -1\nwait 0.4\n" + Self.address + "submit\n")
        let run = try await Haptic.run([
            "order", "--store", scratch.path("store"), "--log", scratch.path("log.jsonl"), "--device", "null",
            "--script", script,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let replay = try await Haptic.run(["order", "replay", scratch.path("log.jsonl"), "-o", scratch.path("out.wav")])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.output.split(separator: "\n").count == 4)
        let log = try EventLogReader.read(path: scratch.path("log.jsonl"))
        let times = log.events.filter { $0.feedback != nil }.map(\.t)
        // increase, selection (type), decrease, success: an empty or short log must not pass.
        #expect(times.count == 4, "feedback times in the log: \(times)")
        let clip = try WAV.decode(Array(try Data(contentsOf: scratch.url.appending(path: "out.wav"))))
        // Presets have several taps each: every logged feedback must start a burst within 1 ms.
        let onsets = AudioAnalysis.onsets(clip.samples, channels: 1, minGapFrames: clip.sampleRate / 50)
        #expect(onsets.count >= times.count)
        for time in times {
            let nearest = onsets.map { abs(Double($0) / Double(clip.sampleRate) - time) }.min() ?? .infinity
            #expect(nearest < 0.001, "no onset within 1 ms of the feedback logged at \(time) s")
        }
        // Twice as fast: every onset at half its time.
        let fast = try await Haptic.run([
            "order", "replay", scratch.path("log.jsonl"), "--speed", "2", "-o", scratch.path("fast.wav"),
        ])
        #expect(fast.status == 0)
        let fastClip = try WAV.decode(Array(try Data(contentsOf: scratch.url.appending(path: "fast.wav"))))
        let fastOnsets = AudioAnalysis.onsets(fastClip.samples, channels: 1, minGapFrames: fastClip.sampleRate / 50)
        for time in times {
            let nearest = fastOnsets.map { abs(Double($0) / Double(fastClip.sampleRate) - time / 2) }.min() ?? .infinity
            #expect(nearest < 0.001, "no onset within 1 ms of \(time / 2) s at double speed")
        }
        #expect(fastClip.duration < clip.duration)
    }

    @Test func replaySkipsACorruptedLineAndPlaysTheRest() async throws {
        let scratch = try ScratchFolder()
        let log = try scratch.write(
            "log.jsonl",
            #"{"change":"quantity","feedback":"increase","new":"4","old":"3","t":0.1}"# + "\n"
                + #"{"change":"type","feedback":"selec"# + "\n"
                + #"{"change":"checkout","feedback":"success","new":"order x","t":0.5}"# + "\n")
        let result = try await Haptic.run(["order", "replay", log, "--summary", "-o", scratch.path("out.wav")])
        #expect(result.status == 0)
        #expect(result.stderr.hasPrefix("\(log):2: error: not an event"))
        #expect(result.output == "2 feedbacks over 0.500 s\n  increase     1\n  success      1\n")
        let clip = try WAV.decode(Array(try Data(contentsOf: scratch.url.appending(path: "out.wav"))))
        #expect(
            AudioAnalysis.onsets(clip.samples, channels: 1, minGapFrames: 4_800).map {
                abs($0 - 4_800) < 48 || abs($0 - 24_000) < 48
            } == [true, true])
    }

    /// A child appends orders in a loop and prints each id once it is durable; it is killed
    /// with SIGKILL at random moments. Every id it reported must read back; a torn tail is
    /// reported, never fatal.
    @Test func everyReportedOrderSurvivesKillNine() async throws {
        let scratch = try ScratchFolder()
        let store = scratch.path("store")
        let script = try scratch.write("loop.txt", Self.address + String(repeating: "submit\n", count: 5_000))
        var reported: Set<String> = []
        for iteration in 0..<20 {
            let process = try await ChildProcess.start(
                Haptic.executable.path(percentEncoded: false),
                ["order", "--store", store, "--device", "null", "--script", script])
            // Let it save a random number of orders (at least one), then kill it mid-flight.
            let wanted = 1 + (iteration * 7919) % 23
            _ = await process.waitForOutput(timeout: .seconds(60)) {
                String(decoding: process.stdout, as: UTF8.self).split(separator: "\n").count >= wanted
            }
            process.signal(SIGKILL)
            let text = try await process.wait().output
            for line in text.split(separator: "\n") where line.hasSuffix("orders.jsonl") {
                // "... Order ID saved in PATH"
                let words = line.split(separator: " ")
                if let index = words.firstIndex(of: "Order"), index + 1 < words.count {
                    reported.insert(String(words[index + 1]))
                }
            }
        }
        #expect(reported.count >= 20)
        let loaded = try OrderStore(directory: URL(filePath: store)).load()
        let stored = Set(loaded.orders.map(\.id))
        #expect(reported.isSubset(of: stored), "lost: \(reported.subtracting(stored))")
        // Any damage is a reported line, never a crash or a silent drop.
        #expect(loaded.problems.allSatisfy { $0.line > 0 && $0.description.contains("orders.jsonl:") })
    }
}

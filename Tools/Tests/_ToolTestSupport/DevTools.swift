package import Foundation
import HummingbirdWSClient
import Logging
import Synchronization

/// Headless Chromium driven through the DevTools protocol, for tests that use a page as a person
/// would: load it, click, drag, press keys, and read back what the page shows.
///
/// Each `DevTools.withPage` runs its own Chromium with a fresh profile and one page, attached in
/// flattened mode over one WebSocket (hummingbird-websocket's client).
///
/// ```swift
/// try await DevTools.withPage(size: (1400, 900)) { page in
///     try await page.navigate(to: url)
///     try await page.waitFor("document.body.dataset.ready === '1'")
///     try await page.drag(from: (300, 100), to: (340, 100))
///     let events = try await page.evaluate("studio.state.ahap.Pattern.length") as? Int
/// }
/// ```
package final class DevToolsPage: Sendable {
    /// A protocol error, a failed script, or a condition that never held.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    let outbound: @Sendable (String) async throws -> Void
    let pending = Mutex<[Int: CheckedContinuation<[String: any Sendable], any Error>]>([:])
    let nextID = Atomic<Int>(1)
    let session = Mutex<String?>(nil)
    let console = Mutex<[String]>([])
    /// The stream handle of the last finished trace (`Tracing.tracingComplete`).
    let traceStream = Mutex<String?>(nil)

    /// Console messages and uncaught exceptions the page reported, oldest first.
    package var consoleMessages: [String] { console.withLock { $0 } }

    init(outbound: @escaping @Sendable (String) async throws -> Void) {
        self.outbound = outbound
    }

    /// Sends one command (to the attached page unless `browser`) and waits for its result.
    @discardableResult
    package func send(_ method: String, _ params: [String: Any] = [:], browser: Bool = false) async throws
        -> [String: any Sendable]
    {
        let id = nextID.add(1, ordering: .relaxed).oldValue
        var message: [String: Any] = ["id": id, "method": method, "params": params]
        if !browser, let session = session.withLock({ $0 }) { message["sessionId"] = session }
        let text = String(decoding: try JSONSerialization.data(withJSONObject: message), as: UTF8.self)
        return try await withCheckedThrowingContinuation { continuation in
            pending.withLock { $0[id] = continuation }
            Task {
                do {
                    try await outbound(text)
                } catch {
                    pending.withLock { $0.removeValue(forKey: id) }?.resume(throwing: error)
                }
            }
        }
    }

    /// Routes one message from Chromium: a reply to its command, or an event worth keeping.
    func receive(_ text: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return }
        if let id = object["id"] as? Int {
            guard let continuation = pending.withLock({ $0.removeValue(forKey: id) }) else { return }
            if let error = object["error"] as? [String: Any] {
                continuation.resume(throwing: Failure(description: "DevTools: \(error["message"] ?? error)"))
            } else {
                continuation.resume(returning: Self.sendable(object["result"] as? [String: Any] ?? [:]))
            }
            return
        }
        let method = object["method"] as? String
        let params = object["params"] as? [String: Any] ?? [:]
        if method == "Runtime.consoleAPICalled" {
            let args = (params["args"] as? [[String: Any]] ?? []).map { "\($0["value"] ?? $0["description"] ?? "")" }
            console.withLock { $0.append("console.\(params["type"] ?? "log"): " + args.joined(separator: " ")) }
        } else if method == "Tracing.tracingComplete" {
            traceStream.withLock { $0 = params["stream"] as? String ?? "" }
        } else if method == "Runtime.exceptionThrown" {
            let details = params["exceptionDetails"] as? [String: Any] ?? [:]
            let exception = details["exception"] as? [String: Any] ?? [:]
            console.withLock { $0.append("exception: \(exception["description"] ?? details["text"] ?? "")") }
        }
    }

    func failAll(_ error: any Error) {
        let waiting = pending.withLock { pending in
            defer { pending = [:] }
            return pending
        }
        for continuation in waiting.values { continuation.resume(throwing: error) }
    }

    static func sendable(_ object: [String: Any]) -> [String: any Sendable] {
        object.mapValues { value -> any Sendable in
            switch value {
            case let nested as [String: Any]: return sendable(nested)
            case let list as [Any]: return list.map { "\($0)" }
            // Foundation on Linux gives JSON's true and false as __NSCFBoolean, which also casts to
            // Bool from any NSNumber; its class name is what tells them apart.
            case let number as NSNumber where "\(type(of: number))" == "__NSCFBoolean": return number.boolValue
            case let number as NSNumber: return number.doubleValue
            case let string as String: return string
            default: return "\(value)"
            }
        }
    }

    // MARK: - What a test does

    /// Loads `url` and waits for the load event.
    package func navigate(to url: String) async throws {
        try await send("Page.navigate", ["url": url])
        try await waitFor("document.readyState === 'complete'")
    }

    /// The value of a JavaScript expression (awaited when it is a promise), as JSON gives it back:
    /// Double, String, Bool, or JSON text for objects and arrays (`JSON.stringify` them yourself).
    @discardableResult
    package func evaluate(_ expression: String) async throws -> (any Sendable)? {
        let result = try await send(
            "Runtime.evaluate", ["expression": expression, "returnByValue": true, "awaitPromise": true])
        if let exception = result["exceptionDetails"] as? [String: any Sendable] {
            let inner = exception["exception"] as? [String: any Sendable]
            throw Failure(
                description: "script failed: \(inner?["description"] ?? exception["text"] ?? "?") in \(expression)")
        }
        return (result["result"] as? [String: any Sendable])?["value"]
    }

    /// A number the expression gives (nil when it is not one).
    package func number(_ expression: String) async throws -> Double? { try await evaluate(expression) as? Double }

    /// A string the expression gives.
    package func string(_ expression: String) async throws -> String? { try await evaluate(expression) as? String }

    /// Waits until the expression is truthy, polling every 20 ms.
    ///
    /// - Throws: ``Failure`` naming the condition (and the page's console) after `timeout` seconds.
    package func waitFor(_ condition: String, timeout: Double = 10) async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while ContinuousClock.now < deadline {
            if let value = try? await number("(\(condition)) ? 1 : 0"), value == 1 { return }
            do {
                try await Task.sleep(for: .milliseconds(20))
            } catch {
                let log = console.withLock { $0.suffix(10).joined(separator: "\n") }
                throw Failure(description: "cancelled while waiting for \(condition)\n\(log)")
            }
        }
        let log = console.withLock { $0.suffix(10).joined(separator: "\n") }
        throw Failure(
            description: "timed out after \(timeout) s waiting for \(condition)\(log.isEmpty ? "" : "\n" + log)")
    }

    /// Where an element's centre is, in CSS pixels of the viewport.
    package func center(of selector: String) async throws -> (x: Double, y: Double) {
        let json =
            try await string(
                "(() => { const r = document.querySelector(\(Self.quoted(selector))).getBoundingClientRect(); "
                    + "return JSON.stringify([r.left + r.width / 2, r.top + r.height / 2]); })()") ?? "[0,0]"
        let values = (try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Double]) ?? [0, 0]
        return (values[0], values[1])
    }

    /// A left click at a point.
    package func click(_ x: Double, _ y: Double, modifiers: Int = 0, count: Int = 1) async throws {
        try await mouse("mouseMoved", x, y, modifiers: modifiers)
        for n in 1...count {
            try await mouse("mousePressed", x, y, modifiers: modifiers, clickCount: n)
            try await mouse("mouseReleased", x, y, modifiers: modifiers, clickCount: n)
        }
    }

    /// Clicks the element matching `selector`.
    package func click(_ selector: String) async throws {
        let (x, y) = try await center(of: selector)
        try await click(x, y)
    }

    /// Presses at `from`, moves in `steps` steps, releases at `to`: a drag as a hand makes it.
    package func drag(from: (Double, Double), to: (Double, Double), steps: Int = 8, modifiers: Int = 0) async throws {
        try await mouse("mouseMoved", from.0, from.1, modifiers: modifiers)
        try await mouse("mousePressed", from.0, from.1, modifiers: modifiers, clickCount: 1)
        for i in 1...steps {
            let f = Double(i) / Double(steps)
            try await mouse(
                "mouseMoved", from.0 + (to.0 - from.0) * f, from.1 + (to.1 - from.1) * f, modifiers: modifiers,
                buttons: 1)
        }
        try await mouse("mouseReleased", to.0, to.1, modifiers: modifiers, clickCount: 1)
    }

    package func mouse(
        _ type: String, _ x: Double, _ y: Double, modifiers: Int = 0, clickCount: Int = 0, buttons: Int? = nil
    ) async throws {
        var params: [String: Any] = ["type": type, "x": x, "y": y, "modifiers": modifiers, "button": "left"]
        if clickCount > 0 { params["clickCount"] = clickCount }
        if let buttons { params["buttons"] = buttons } else if type == "mousePressed" { params["buttons"] = 1 }
        try await send("Input.dispatchMouseEvent", params)
    }

    /// Modifier bits for `modifiers:`.
    package static let alt = 1, control = 2, meta = 4, shift = 8

    /// Presses and releases a key: `key` as `KeyboardEvent.key` gives it ("a", "Delete", "ArrowRight", " ").
    package func press(_ key: String, modifiers: Int = 0) async throws {
        let (code, keyCode) = Self.codes(for: key)
        var down: [String: Any] = [
            "type": "keyDown", "key": key, "code": code, "windowsVirtualKeyCode": keyCode, "modifiers": modifiers,
        ]
        if key.count == 1, modifiers & (Self.control | Self.meta) == 0 { down["text"] = key }
        try await send("Input.dispatchKeyEvent", down)
        try await send(
            "Input.dispatchKeyEvent",
            ["type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": keyCode, "modifiers": modifiers])
    }

    static func codes(for key: String) -> (String, Int) {
        switch key {
        case "Delete": return ("Delete", 46)
        case "Backspace": return ("Backspace", 8)
        case "Escape": return ("Escape", 27)
        case "Enter": return ("Enter", 13)
        case " ": return ("Space", 32)
        case "ArrowLeft": return ("ArrowLeft", 37)
        case "ArrowUp": return ("ArrowUp", 38)
        case "ArrowRight": return ("ArrowRight", 39)
        case "ArrowDown": return ("ArrowDown", 40)
        default:
            let upper = key.uppercased()
            if let scalar = upper.unicodeScalars.first, upper.count == 1, ("A"..."Z").contains(upper) {
                return ("Key" + upper, Int(scalar.value))
            }
            return (key, Int(key.unicodeScalars.first?.value ?? 0))
        }
    }

    /// Records a DevTools trace of the `categories` while `body` runs: the trace's JSON text
    /// (`{"traceEvents": [...]}`), as Chromium's Performance panel loads it.
    package func trace(categories: [String], _ body: () async throws -> Void) async throws -> Data {
        traceStream.withLock { $0 = nil }
        try await send(
            "Tracing.start",
            [
                "transferMode": "ReturnAsStream", "streamFormat": "json",
                "traceConfig": ["includedCategories": categories],
            ])
        try await body()
        try await send("Tracing.end")
        let deadline = ContinuousClock.now + .seconds(60)
        var stream: String?
        while stream == nil, ContinuousClock.now < deadline {
            stream = traceStream.withLock { $0 }
            if stream == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        guard let stream, !stream.isEmpty else { throw Failure(description: "the trace never completed") }
        var data = Data()
        while true {
            let chunk = try await send("IO.read", ["handle": stream, "size": 1 << 20])
            let text = chunk["data"] as? String ?? ""
            if chunk["base64Encoded"] as? Bool == true {
                data.append(Data(base64Encoded: text) ?? Data())
            } else {
                data.append(Data(text.utf8))
            }
            if chunk["eof"] as? Bool == true { break }
        }
        try await send("IO.close", ["handle": stream])
        return data
    }

    /// A PNG of the viewport.
    package func screenshot() async throws -> Data {
        let result = try await send("Page.captureScreenshot", ["format": "png"])
        return Data(base64Encoded: result["data"] as? String ?? "") ?? Data()
    }

    static func quoted(_ text: String) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: [text])) ?? Data("[\"\"]".utf8), as: UTF8.self)
            .dropFirst().dropLast().description
    }
}

package enum DevTools {
    /// Runs `body` with a fresh page in a new headless Chromium of `size` CSS pixels, then closes it.
    ///
    /// - Throws: ``HeadlessChromium/Failure`` when Chromium is missing or does not start, or what
    ///   `body` throws.
    package static func withPage<T: Sendable>(
        size: (width: Int, height: Int) = (1400, 900), _ body: @escaping @Sendable (DevToolsPage) async throws -> T
    ) async throws -> T {
        let chromium = try HeadlessChromium()
        let profile = FileManager.default.temporaryDirectory.appending(path: "haptics-devtools-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: profile) }
        let arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--remote-debugging-port=0", "--remote-allow-origins=*",
            "--user-data-dir=\(profile.path(percentEncoded: false))",
            "--window-size=\(size.width),\(size.height)", "--autoplay-policy=no-user-gesture-required", "about:blank",
        ]
        let process = try await ChildProcess.start(
            chromium.executable.path(percentEncoded: false), arguments,
            environment: HeadlessChromium.environment(profile: profile), ownProcessGroup: true)
        // SIGTERM, and SIGKILL to Chromium and its helpers if it is still there 10 s later; waited
        // for either way.
        func stop() async {
            process.signal(SIGTERM)
            let watchdog = Task {
                try await Task.sleep(for: .seconds(10))
                process.signal(SIGKILL, group: true)
            }
            _ = try? await process.wait()
            watchdog.cancel()
        }
        do {
            let result = try await attach(process, arguments: arguments, profile: profile, size: size, body)
            await stop()
            return result
        } catch {
            await stop()
            throw error
        }
    }

    /// Connects to the Chromium `process` started with `arguments` once it listens, and runs `body`.
    private static func attach<T: Sendable>(
        _ process: ChildProcess, arguments: [String], profile: URL, size: (width: Int, height: Int),
        _ body: @escaping @Sendable (DevToolsPage) async throws -> T
    ) async throws -> T {
        // Chromium writes its port and the browser's WebSocket path here once it listens.
        let portFile = profile.appending(path: "DevToolsActivePort")
        var lines: [Substring] = []
        for _ in 0..<500 {
            if let text = try? String(contentsOf: portFile, encoding: .utf8) {
                lines = text.split(separator: "\n")
                if lines.count >= 2 { break }
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        guard lines.count >= 2 else {
            throw HeadlessChromium.Failure.exited(
                status: process.isRunning ? -1 : 0, arguments: arguments,
                log: "no DevToolsActivePort within 10 s\n" + process.stderr.suffix(4000))
        }
        let url = "ws://127.0.0.1:\(lines[0])\(lines[1])"
        let outcome = Outcome<T>()
        var logger = Logger(label: "devtools")
        logger.logLevel = .critical
        // The client may report the closing of a connection the test was done with (a
        // CancellationError from its close handshake); once the body has an outcome that is not news.
        do {
            try await connect(url: url, size: size, logger: logger, outcome: outcome, body)
        } catch  where outcome.result != nil {
        }
        guard let result = outcome.result else {
            throw DevToolsPage.Failure(description: "the DevTools connection closed before the test ran")
        }
        return try result.get()
    }

    static func connect<T: Sendable>(
        url: String, size: (width: Int, height: Int), logger: Logger, outcome: Outcome<T>,
        _ body: @escaping @Sendable (DevToolsPage) async throws -> T
    ) async throws {
        try await WebSocketClient.connect(
            url: url, configuration: .init(maxFrameSize: 1 << 26), logger: logger
        ) { inbound, outbound, _ in
            let page = DevToolsPage { text in try await outbound.write(.text(text)) }
            let reader = Task {
                var messages = inbound.messages(maxSize: 1 << 26).makeAsyncIterator()
                do {
                    while let message = try await messages.next() {
                        if case .text(let text) = message { page.receive(text) }
                    }
                    page.console.withLock { $0.append("devtools: inbound ended") }
                    page.failAll(DevToolsPage.Failure(description: "Chromium closed the DevTools connection"))
                } catch {
                    page.console.withLock { $0.append("devtools: inbound failed: \(error)") }
                    page.failAll(error)
                }
            }
            do {
                let target = try await page.send("Target.createTarget", ["url": "about:blank"], browser: true)
                let attached = try await page.send(
                    "Target.attachToTarget", ["targetId": target["targetId"] as? String ?? "", "flatten": true],
                    browser: true)
                page.session.withLock { $0 = attached["sessionId"] as? String }
                try await page.send("Page.enable")
                try await page.send("Runtime.enable")
                try await page.send(
                    "Emulation.setDeviceMetricsOverride",
                    ["width": size.width, "height": size.height, "deviceScaleFactor": 1, "mobile": false])
                let value = try await body(page)
                outcome.set(.success(value))
            } catch is CancellationError {
                let log = page.consoleMessages.suffix(10).joined(separator: "\n")
                outcome.set(.failure(DevToolsPage.Failure(description: "cancelled\n\(log)")))
            } catch {
                outcome.set(.failure(error))
            }
            // Returning from the handler closes the connection.
            reader.cancel()
        }
    }
}

/// How the test body ended, shared with the connection's handler.
final class Outcome<T: Sendable>: Sendable {
    private let stored = Mutex<Result<T, any Error>?>(nil)
    var result: Result<T, any Error>? { stored.withLock { $0 } }
    func set(_ result: Result<T, any Error>) { stored.withLock { $0 = result } }
}

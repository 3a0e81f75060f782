import CupcakeCorner
import Foundation
@_spi(Tooling) import HapticsEngine

/// The interactive order form: raw-mode terminal on the alternate screen, redrawn after
/// every key and on SIGWINCH; the terminal is restored on quit, Ctrl-C, SIGTERM and SIGHUP.
///
/// Signals come from ``Interrupts`` (dispatch sources), which wake the key loop through a pipe.
final class OrderScreen {
    let session: OrderSession
    let sink: EngineFeedbackSink
    private var order: CupcakeCorner.Order { session.order }
    private var saved = termios()
    private var message = ""
    /// The address field being edited (0 name ... 3 zip), nil outside address editing.
    private var editing: Int?
    private var draft = ""
    private var pipe: (read: Int32, write: Int32) = (-1, -1)

    private static let fieldNames = ["Name", "Street", "City", "Zip"]

    init(session: OrderSession, sink: EngineFeedbackSink) {
        self.session = session
        self.sink = sink
    }

    /// Runs until `q`, or a stop signal (Ctrl-C, SIGTERM, SIGHUP: ``Interrupts/wasRequested`` is then
    /// true); returns whether it failed (the screen reports failures itself).
    func run() throws -> Bool {
        var fds: [Int32] = [-1, -1]
        do {
            try systemCall("pipe") { Glibc.pipe(&fds) }
        } catch {
            throw Terminal.failure("cannot start the order screen: \(error)")
        }
        pipe = (fds[0], fds[1])
        defer {
            Interrupts.onInterrupt(nil)
            Interrupts.onResize(nil)
            close(pipe.read)
            close(pipe.write)
        }
        _ = fcntl(pipe.write, F_SETFL, O_NONBLOCK)
        let wake = pipe.write
        @Sendable func wakeLoop(_ byte: UInt8) {
            var byte = byte
            _ = write(wake, &byte, 1)
        }
        Interrupts.install()
        Interrupts.onInterrupt { wakeLoop(0) }
        Interrupts.onResize { wakeLoop(1) }
        enterRawMode()
        defer { restore() }
        draw()
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            var polls = [
                pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                pollfd(fd: pipe.read, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&polls, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return false
            }
            if polls[1].revents & Int16(POLLIN) != 0 {
                var byte: UInt8 = 0
                _ = read(pipe.read, &byte, 1)
                if Interrupts.wasRequested { return false }
                draw()
            }
            if polls[0].revents & Int16(POLLIN | POLLHUP) != 0 {
                let count = read(STDIN_FILENO, &buffer, buffer.count)
                if count <= 0 { return false }
                if !handle(Array(buffer[..<count])) { return false }
                draw()
            }
        }
    }

    // MARK: Keys

    /// Applies the keys in `bytes`; false to quit.
    private func handle(_ bytes: [UInt8]) -> Bool {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            // Escape sequences: the arrows arrive as ESC [ A .. D (or ESC O A in application mode).
            if byte == 0x1B, index + 2 < bytes.count,
                bytes[index + 1] == UInt8(ascii: "[") || bytes[index + 1] == UInt8(ascii: "O")
            {
                let key = bytes[index + 2]
                index += 3
                if editing == nil {
                    if key == UInt8(ascii: "A") || key == UInt8(ascii: "C") { perform(.stepQuantity(1)) }
                    if key == UInt8(ascii: "B") || key == UInt8(ascii: "D") { perform(.stepQuantity(-1)) }
                }
                continue
            }
            index += 1
            if byte == 0x03 { return false }  // Ctrl-C in raw mode
            if editing != nil {
                editKey(byte)
                continue
            }
            switch byte {
            case UInt8(ascii: "+"), UInt8(ascii: "="): perform(.stepQuantity(1))
            case UInt8(ascii: "-"), UInt8(ascii: "_"): perform(.stepQuantity(-1))
            case UInt8(ascii: "t"): perform(.nextType)
            case UInt8(ascii: "s"): perform(.special(nil))
            case UInt8(ascii: "f"): perform(.frosting(nil))
            case UInt8(ascii: "p"): perform(.sprinkles(nil))
            case UInt8(ascii: "a"):
                editing = 0
                draft = order.name
                message = ""
            case 0x0D, 0x0A: perform(.submit)
            case UInt8(ascii: "q"): return false
            default: break
            }
        }
        return true
    }

    private func editKey(_ byte: UInt8) {
        guard let field = editing else { return }
        switch byte {
        case 0x7F, 0x08:
            if !draft.isEmpty { draft.removeLast() }
        case 0x09, 0x0D, 0x0A:
            commit(field)
            if field == 3 {
                editing = nil
            } else {
                editing = field + 1
                draft = [order.name, order.streetAddress, order.city, order.zip][field + 1]
            }
        case 0x1B:
            commit(field)
            editing = nil
        case 0x20...0x7E:
            let typed = draft + String(Character(UnicodeScalar(byte)))
            if field == 3, CupcakeCorner.Order.zipRefusal(typed) != nil {
                perform(.zip(typed))  // refused: plays .error, logs it, shows why
            } else {
                draft = typed
            }
        default:
            break
        }
    }

    private func commit(_ field: Int) {
        let actions: [(String) -> OrderAction] = [
            OrderAction.name, OrderAction.street, OrderAction.city, OrderAction.zip,
        ]
        session.perform(actions[field](draft))
    }

    private func perform(_ action: OrderAction) {
        switch session.perform(action) {
        case .changed, .unchanged: message = ""
        case .notAllowed(let reason) where editing != nil:
            message = "\(reason.prefix(1).uppercased())\(reason.dropFirst())."
        case .notAllowed(let reason): message = "Turn on special requests (s) first: \(reason)."
        case .checkedOut(let receipt):
            message = "\(receipt.message)\nTotal \(receipt.cost.dollars) · order \(receipt.id)"
        case .rejected(let reason): message = "Checkout failed: \(reason)"
        }
    }

    // MARK: Terminal

    private func enterRawMode() {
        tcgetattr(STDIN_FILENO, &saved)
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL | BRKINT | INPCK | ISTRIP)
        raw.c_cc.6 = 1  // VMIN
        raw.c_cc.5 = 0  // VTIME
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)
        emit("\u{1B}[?1049h\u{1B}[?25l")
    }

    private var restored = false

    private func restore() {
        guard !restored else { return }
        restored = true
        emit("\u{1B}[?25h\u{1B}[?1049l")
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
        if !message.isEmpty { printLine(message) }
    }

    private func emit(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            offset += n
        }
    }

    private func size() -> (rows: Int, columns: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return (24, 80) }
        return (Int(size.ws_row), Int(size.ws_col))
    }

    private func draw() {
        let (rows, columns) = size()
        func yesNo(_ value: Bool) -> String { value ? "yes" : "no" }
        var lines = [
            "Cupcake Corner",
            "",
            "Cake type: \(order.typeName)  (t: \(CupcakeCorner.Order.types.joined(separator: " / ")))",
            "Number of cakes: \(order.quantity)",
            "Special requests: \(order.specialRequestEnabled ? "on" : "off")",
        ]
        if order.specialRequestEnabled {
            lines += [
                "  Extra frosting: \(yesNo(order.extraFrosting))", "  Add sprinkles: \(yesNo(order.addSprinkles))",
            ]
        }
        lines += ["", "Delivery address\(order.hasValidAddress ? "" : " (incomplete)")"]
        let values = [order.name, order.streetAddress, order.city, order.zip]
        for (index, label) in Self.fieldNames.enumerated() {
            let active = editing == index
            let value = active ? draft + "_" : values[index]
            lines.append("\(active ? ">" : " ") \(label.padding(toLength: 7, withPad: " ", startingAt: 0)) \(value)")
        }
        lines += ["", "Cost: \(order.cost.dollars)", ""]
        lines += message.split(separator: "\n").map(String.init)
        let footer =
            editing == nil
            ? "+/- or arrows: cakes · t type · s special · f frosting · p sprinkles · a address · Enter check out · q quit"
            : "Editing the address: type, Backspace deletes, Tab/Enter: next field, Esc: done"
        var screen = "\u{1B}[H\u{1B}[2J"
        for (row, line) in lines.prefix(max(0, rows - 2)).enumerated() {
            screen += "\u{1B}[\(row + 1);1H" + String(line.prefix(columns))
        }
        screen += "\u{1B}[\(rows);1H" + String(footer.prefix(columns))
        emit(screen)
    }
}

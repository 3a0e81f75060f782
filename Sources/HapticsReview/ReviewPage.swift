import HapticsCore
import OrderedCollections

/// The design-review page: one self-contained HTML file listing every entry with its plot, an
/// audio preview, statistics, lint findings and metadata.
///
/// The page fetches nothing: CSS is inline, plots are inline SVG, audio is a `data:` URI, and a
/// Content-Security-Policy (`default-src 'none'`) forbids scripts and any network access. Every
/// piece of text from the files (titles, paths, metadata, lint messages) is escaped, so a pattern
/// whose `Description` holds markup shows it as text. The output is also well-formed XML.
///
/// ```swift
/// let html = ReviewPage.html(title: "Haptics review", entries: entries, generated: "2025-06-05 10:00")
/// ```
///
/// - Complexity: O(total size of the entries), dominated by the base64 audio (4/3 of the WAV bytes).
public enum ReviewPage {
    /// The Content-Security-Policy the page carries.
    public static let contentSecurityPolicy =
        "default-src 'none'; img-src data:; media-src data:; style-src 'unsafe-inline'"

    /// Builds the page. `generated` is shown verbatim (escaped), e.g. a timestamp and the command.
    public static func html(title: String, entries: [ReviewEntry], generated: String) -> String {
        var out = ""
        out.reserveCapacity(entries.reduce(16_384) { $0 + $1.plotSVG.utf8.count + $1.wavBytes.count * 4 / 3 + 4096 })
        let e = Markup.escape
        out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
        out += "<meta http-equiv=\"Content-Security-Policy\" content=\"\(e(contentSecurityPolicy))\"/>\n"
        out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
        out += "<meta name=\"generator\" content=\"swift-haptics HapticsReview\"/>\n"
        out += "<title>\(e(title))</title>\n<style>\(css)</style>\n</head>\n"
        out += "<body data-review-page=\"swift-haptics\">\n<header class=\"page-head\">\n<div class=\"wrap\">\n"
        out += "<h1>\(e(title))</h1>\n"
        let errors = entries.reduce(0) { $0 + $1.findings.count { $0.diagnostic.severity == .error } }
        let warnings = entries.reduce(0) { $0 + $1.findings.count { $0.diagnostic.severity == .warning } }
        out += "<p class=\"summary\"><span>\(entries.count) \(entries.count == 1 ? "entry" : "entries")</span>"
        out += "<span class=\"count error\(errors == 0 ? " zero" : "")\">\(plural(errors, "error"))</span>"
        out += "<span class=\"count warning\(warnings == 0 ? " zero" : "")\">\(plural(warnings, "warning"))</span>"
        out += "<span class=\"generated\">Generated \(e(generated))</span></p>\n"
        out += "</div>\n</header>\n<main class=\"wrap\">\n"

        // Table of contents.
        out += "<nav class=\"toc\" aria-label=\"Contents\">\n<h2>Contents</h2>\n<ol>\n"
        for (index, entry) in entries.enumerated() {
            let s = entry.statistics
            out += "<li><a href=\"#entry-\(index + 1)\">\(e(entry.title))</a>"
            out += " <span class=\"badge kind\">\(e(entry.kind.rawValue))</span>"
            out +=
                " <span class=\"muted\">\(Markup.fixed(entry.durationSeconds, 2)) s · \(plural(s.eventCount, "event"))</span>"
            out += findingCounts(entry.findings)
            out += "</li>\n"
        }
        out += "</ol>\n</nav>\n"

        for (index, entry) in entries.enumerated() {
            section(&out, entry, number: index + 1)
        }
        out += "</main>\n<footer class=\"wrap\"><p>swift-haptics design review · self-contained page: "
        out += "no scripts, no network.</p></footer>\n</body>\n</html>\n"
        return out
    }

    private static func section(_ out: inout String, _ entry: ReviewEntry, number: Int) {
        let e = Markup.escape
        let s = entry.statistics
        out += "<section class=\"entry\" id=\"entry-\(number)\">\n<div class=\"entry-head\">\n"
        out += "<h2><span class=\"index\">\(number)</span>\(e(entry.title))</h2>\n"
        out += "<span class=\"badge kind\">\(e(entry.kind.rawValue))</span>\(findingCounts(entry.findings))\n"
        out += "</div>\n<p class=\"path\"><code>\(e(entry.path))</code></p>\n"

        out += "<div class=\"preview\">\n"
        if entry.wavBytes.isEmpty {
            out += "<p class=\"muted\">No audio preview.</p>\n"
        } else {
            out += "<audio controls=\"controls\" preload=\"metadata\" src=\"data:audio/wav;base64,"
            out += Markup.base64(entry.wavBytes)
            out += "\"></audio>\n"
            if let preview = entry.previewSeconds {
                out += "<p class=\"muted preview-note\">Preview: the first \(Markup.fixed(preview, 1)) s of "
                out += "\(Markup.fixed(entry.durationSeconds, 1)) s (longer previews: "
                out += "<code>haptic review --preview-seconds</code>).</p>\n"
            }
        }
        out += "</div>\n"

        out += "<dl class=\"stats\">\n"
        var rows: [(String, String)] = [
            ("Duration", Markup.fixed(entry.durationSeconds, 3) + " s"),
            ("Events", String(s.eventCount)),
            ("Transients", String(s.transientCount)),
            ("Continuous", "\(s.continuousCount) (\(Markup.fixed(s.continuousSeconds, 3)) s)"),
            ("Audio events", String(s.audioCount)),
            ("Curves", "\(s.curveCount) (\(plural(s.controlPointCount, "point")))"),
            ("Dynamic parameters", String(s.dynamicParameterCount)),
        ]
        if let peak = s.peakIntensity { rows.append(("Peak intensity", Markup.value(peak))) }
        if let range = s.sharpnessRange {
            rows.append(
                (
                    "Sharpness",
                    range.lowerBound == range.upperBound
                        ? Markup.value(range.lowerBound)
                        : "\(Markup.value(range.lowerBound)) – \(Markup.value(range.upperBound))"
                ))
        }
        if let gap = s.closestTransientSpacing {
            rows.append(("Closest transients", Markup.number(gap * 1000, decimals: 1) + " ms apart"))
        }
        for (name, value) in rows {
            out += "<div><dt>\(e(name))</dt><dd>\(e(value))</dd></div>\n"
        }
        out += "</dl>\n"

        out += "<figure class=\"plot\">\n\(entry.plotSVG)</figure>\n"

        out += "<div class=\"columns\">\n<div class=\"column\">\n"
        out += "<h3>Lint findings</h3>\n"
        if entry.findings.isEmpty {
            out += "<p class=\"clean\">No findings.</p>\n"
        } else {
            out += "<ul class=\"findings\">\n"
            // Each rule's repeats fold after three, as `haptic lint` prints them: a file with 564 clamped
            // values is three findings and one line, not a page of them.
            for folded in LintFolding.fold(entry.findings, code: \.diagnostic.code) {
                switch folded {
                case .item(let finding):
                    let d = finding.diagnostic
                    out +=
                        "<li class=\"finding \(d.severity.rawValue)\"><span class=\"severity\">\(d.severity.rawValue)</span>"
                    out += "<span class=\"message\">\(e(d.message))</span>"
                    out +=
                        "<span class=\"where\"><code>\(e(finding.place))</code> <code>\(e(d.path.description))</code>"
                    out += " <span class=\"rule\">\(e(d.code.rawValue))</span></span></li>\n"
                case .more(let code, let count):
                    out += "<li class=\"finding more\"><span class=\"message\">… and \(count) more"
                    out +=
                        " [\(e(code.rawValue))] in this file (<code>haptic lint --all \(e(entry.path))</code> shows every one)"
                    out += "</span></li>\n"
                }
            }
            out += "</ul>\n"
        }
        out += "</div>\n<div class=\"column\">\n<h3>Metadata</h3>\n"
        if entry.metadata.isEmpty {
            out += "<p class=\"muted\">No metadata.</p>\n"
        } else {
            out += "<table class=\"metadata\">\n"
            for (key, value) in entry.metadata {
                out += "<tr><th scope=\"row\">\(e(key))</th><td>\(e(display(value)))</td></tr>\n"
            }
            out += "</table>\n"
        }
        out += "</div>\n</div>\n</section>\n"
    }

    private static func findingCounts(_ findings: [ReviewFinding]) -> String {
        let errors = findings.count { $0.diagnostic.severity == .error }
        let warnings = findings.count { $0.diagnostic.severity == .warning }
        var out = ""
        if errors > 0 { out += " <span class=\"count error\">\(plural(errors, "error"))</span>" }
        if warnings > 0 { out += " <span class=\"count warning\">\(plural(warnings, "warning"))</span>" }
        return out
    }

    private static func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }

    /// A metadata value for display: strings as they are, everything else as compact JSON.
    static func display(_ value: JSONValue) -> String {
        if case .string(let s) = value { return s }
        return value.jsonText
    }

    /// The page's stylesheet. Contains no `<` or `&`, so the page stays well-formed XML.
    static let css = """
        :root { color-scheme: light; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg: #f3f5f8;
          --card: #ffffff; --accent: #3b5bdb; --err: #b42318; --err-bg: #fdecea; --warn: #8a5a00;
          --warn-bg: #fff4d6; --ok: #1a7f37; }
        * { box-sizing: border-box; }
        body { margin: 0; background: var(--bg); color: var(--fg);
          font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
        .wrap { max-width: 1060px; margin: 0 auto; padding: 0 28px; }
        .page-head { background: #1f2937; color: #f9fafb; padding: 28px 0 22px; }
        .page-head h1 { margin: 0 0 6px; font-size: 28px; font-weight: 650; letter-spacing: -0.01em; }
        .summary { margin: 0; display: flex; flex-wrap: wrap; gap: 10px 18px; align-items: center; color: #d1d5db; }
        .summary .count { padding: 1px 10px; border-radius: 999px; font-size: 13px; font-weight: 600; }
        .summary .count.zero { background: #374151; color: #d1d5db; }
        .generated { font-size: 13px; }
        main.wrap { padding-top: 24px; padding-bottom: 8px; }
        h2, h3 { line-height: 1.25; }
        .toc { background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 16px 24px;
          margin-bottom: 24px; }
        .toc h2 { margin: 0 0 8px; font-size: 17px; }
        .toc ol { margin: 0; padding-left: 24px; columns: 2 320px; column-gap: 32px; }
        .toc li { margin: 3px 0; break-inside: avoid; }
        .toc a { color: var(--accent); font-weight: 600; text-decoration: none; }
        .toc a:hover { text-decoration: underline; }
        .muted { color: var(--muted); font-size: 13px; }
        .badge { display: inline-block; padding: 1px 9px; border-radius: 999px; font-size: 12px; font-weight: 600;
          background: #e7ecff; color: #2f4ac0; vertical-align: 2px; }
        .count { display: inline-block; padding: 1px 9px; border-radius: 999px; font-size: 12px; font-weight: 600;
          vertical-align: 2px; }
        .count.error { background: var(--err-bg); color: var(--err); }
        .count.warning { background: var(--warn-bg); color: var(--warn); }
        .entry { background: var(--card); border: 1px solid var(--line); border-radius: 12px;
          padding: 20px 24px 22px; margin: 0 0 28px; box-shadow: 0 1px 2px rgba(16, 24, 40, 0.06); }
        .entry-head { display: flex; flex-wrap: wrap; align-items: center; gap: 10px; }
        .entry-head h2 { margin: 0; font-size: 21px; font-weight: 650; overflow-wrap: anywhere; }
        .index { display: inline-block; min-width: 28px; margin-right: 10px; padding: 0 6px; border-radius: 8px;
          background: var(--fg); color: #ffffff; font-size: 15px; text-align: center; vertical-align: 2px; }
        .path { margin: 4px 0 14px; color: var(--muted); overflow-wrap: anywhere; }
        code { font: 13px/1.4 ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; }
        .preview audio { width: 100%; max-width: 560px; height: 40px; }
        .stats { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 8px 16px;
          margin: 14px 0 16px; }
        .stats div { border-left: 3px solid var(--line); padding-left: 10px; }
        .stats dt { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: 0.04em; }
        .stats dd { margin: 0; font-weight: 600; font-variant-numeric: tabular-nums; }
        .plot { margin: 0 0 12px; border: 1px solid var(--line); border-radius: 8px; overflow: hidden; }
        .plot svg { display: block; width: 100%; height: auto; }
        .columns { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 8px 28px; }
        .column h3 { font-size: 15px; margin: 12px 0 8px; }
        .clean { color: var(--ok); font-weight: 600; margin: 0; }
        .findings { list-style: none; margin: 0; padding: 0; }
        .finding { border-left: 4px solid; border-radius: 6px; padding: 6px 10px; margin: 0 0 6px;
          display: flex; flex-wrap: wrap; gap: 2px 10px; align-items: baseline; }
        .finding.error { border-color: var(--err); background: var(--err-bg); }
        .finding.warning { border-color: #d4a72c; background: var(--warn-bg); }
        .severity { font-size: 11px; font-weight: 700; text-transform: uppercase; letter-spacing: 0.05em; }
        .finding.error .severity { color: var(--err); }
        .finding.warning .severity { color: var(--warn); }
        .message { flex: 1 1 260px; overflow-wrap: anywhere; }
        .where { width: 100%; color: var(--muted); font-size: 12px; overflow-wrap: anywhere; }
        .rule { font-style: italic; }
        .metadata { border-collapse: collapse; width: 100%; font-size: 14px; }
        .metadata th { text-align: left; font-weight: 600; padding: 4px 12px 4px 0; vertical-align: top;
          color: var(--muted); white-space: nowrap; }
        .metadata td { padding: 4px 0; overflow-wrap: anywhere; }
        .metadata tr + tr th, .metadata tr + tr td { border-top: 1px solid #eaeef2; }
        footer p { color: var(--muted); font-size: 13px; margin: 0 0 32px; }
        @media print { body { background: #ffffff; } .entry { break-inside: avoid; box-shadow: none; } }
        """
}

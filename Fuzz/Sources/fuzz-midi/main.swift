// The MIDI reader and MIDI → pattern: any bytes decode or throw a MIDIFileError, never crash; a
// decoded file's notes end at or after they start, and the pattern it makes keeps Core Haptics'
// limits (events, 16 points a curve, continuous events at most 30 s, values in range) and writes
// AHAP that decodes without an error.
import FuzzSupport
import Glibc
import HapticsCore

let status = runFuzzer { data, count in
    let input = bytes(data, count)
    let midi: MIDIFile
    do throws(MIDIFileError) {
        midi = try MIDIFile.decode(input)
    } catch {
        require(error.offset >= 0 && error.offset <= input.count, "offset \(error.offset) of \(input.count) bytes")
        _ = error.description
        return 0
    }
    for track in midi.tracks {
        for note in track.notes {
            require(note.endTick >= note.startTick && note.end >= note.start, "a note ends before it starts")
            require(note.start.isFinite && note.end.isFinite, "note time \(note.start)")
        }
    }
    let limits = AHAPLimits.default
    let conversion = midi.hapticPattern()
    let pattern = conversion.pattern
    require(pattern.events.count <= limits.maxEvents, "\(pattern.events.count) events")
    for event in pattern.events {
        require(event.time >= 0 && event.time <= limits.maxDuration, "event at \(event.time)")
        require((event.duration ?? 0) <= limits.maxContinuousDuration, "an event of \(event.duration ?? 0) s")
        for parameter in event.parameters { require((0...1).contains(parameter.value), "\(parameter)") }
    }
    for curve in pattern.parameterCurves {
        require(curve.controlPoints.count <= limits.recommendedControlPoints, "\(curve.controlPoints.count) points")
        require(curve.controlPoints.allSatisfy { (0...1).contains($0.value) }, "a curve value out of range")
    }
    do {
        _ = try AHAP.decode(AHAP.encode(pattern), file: "fuzz.ahap")
    } catch {
        require(false, "the pattern made from MIDI writes AHAP that does not decode: \(error)")
    }
    return 0
}
exit(status)

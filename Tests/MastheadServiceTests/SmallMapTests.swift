import Masthead
@testable import MastheadService
import MastheadSynthetic
import Testing

/// The small map a cached reader's answers and check bodies are kept in: a dictionary's answers,
/// keys told apart by their exact bytes.
struct SmallMapTests {
    @Test func setReplaceAndRemove_answerAsADictionary() {
        var map = SmallMap<ExactKey, Int>()
        var dictionary: [ExactKey: Int] = [:]
        var random = SeededGenerator(seed: 3)
        for step in 0..<500 {
            let key = ExactKey("key-\(Int.random(in: 0..<8, using: &random))")
            let value: Int? = Int.random(in: 0..<4, using: &random) == 0 ? nil : step
            map[key] = value
            dictionary[key] = value
            #expect(map.count == dictionary.count, "after step \(step)")
            for index in 0..<8 { #expect(map[ExactKey("key-\(index)")] == dictionary[ExactKey("key-\(index)")], "key-\(index) after step \(step)") }
        }
        map.removeAll()
        #expect(map.count == 0)
        #expect(map[ExactKey("key-0")] == nil)
    }

    @Test func canonicallyEquivalentKeys_areTwoEntries() {
        var map = SmallMap<ExactKey, String>()
        map[ExactKey("caf\u{E9}")] = "composed"
        map[ExactKey("cafe\u{301}")] = "decomposed"
        #expect(map.count == 2)
        #expect(map[ExactKey("caf\u{E9}")] == "composed")
        #expect(map[ExactKey("cafe\u{301}")] == "decomposed")
    }
}

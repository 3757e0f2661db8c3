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

    @Test func removeFirstAdded_andFirstValue_goInTheOrderKeysWereAdded() {
        var map = SmallMap<ExactKey, Int>()
        for (index, key) in ["a", "b", "c"].enumerated() { map[ExactKey(key)] = index }
        // Setting a key's value keeps its place.
        map[ExactKey("a")] = 10
        #expect(map.firstValue { $0 > 0 } == 10)
        #expect(map.firstValue { $0 == 1 } == 1)
        #expect(map.firstValue { $0 > 100 } == nil)
        map.removeFirstAdded()
        #expect(map[ExactKey("a")] == nil)
        #expect(map.count == 2)
        map.removeFirstAdded()
        #expect(map[ExactKey("b")] == nil)
        #expect(map[ExactKey("c")] == 2)
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

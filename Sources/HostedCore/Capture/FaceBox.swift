/// A face found in a photo, in pixels of the stored photo, with the detector's score.
public struct FaceBox: Sendable, Equatable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int
    public var score: Double

    public init(x: Int, y: Int, width: Int, height: Int, score: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.score = score
    }
}

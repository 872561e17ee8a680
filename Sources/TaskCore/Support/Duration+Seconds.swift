extension Duration {
    /// In seconds, with the fraction: for Foundation's time intervals, rates and reports.
    public var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

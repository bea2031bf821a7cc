import PNCryptJSON

extension MessageStatus {
    /// The status placed at `location`.
    func located(_ location: Envelope.Location) -> MessageStatus {
        var status = self
        status.index = location.index
        status.channel = location.channel
        status.timetoken = location.timetoken
        return status
    }
}

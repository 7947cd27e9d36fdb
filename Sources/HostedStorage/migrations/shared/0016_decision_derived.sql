-- A verification's decision is what its status says (approved or rejected), so it is no longer
-- stored beside the status (issue 38): the Swift property `Verification.decision` derives it,
-- and nothing can make the two disagree.
ALTER TABLE verifications DROP COLUMN decision;

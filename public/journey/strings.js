// Every string the journey shows, in one place per language.
export const strings = {
  sendFailed: "We could not send the code just now. Please try again.",
  waitBeforeResend: (seconds) => `Please wait ${seconds} seconds before asking for another code.`,
  badNumber: "Enter the mobile number with its country code, e.g. +91 98765 43210.",
  badCode: "That code is not right, or it has expired. Ask for a new code.",
  codeShape: "The code has 6 digits.",
  offline: "You seem to be offline. Check your connection and try again.",
  stepNames: {
    profile: "Your details", selfie: "Selfie", premises_photos: "Photos of your premises",
    document: "Identity document", digilocker: "DigiLocker consent",
  },
  stepPending: "This step opens here.",
  status: {
    submitted: "Thank you. Your verification has been submitted.",
    approved: "Your verification is complete.",
    rejected: "Your verification could not be completed.",
    canceled: "This verification was canceled.",
    expired: "This verification has expired.",
  },
};

/** Native upload: the upload rules, and uploadFile for scripts and the SourceFile resource. */
export { uploadFile, UploadError, type UploadFileOptions, type UploadProgress, type UploadResult } from "./engine";
export { UPLOAD_RULES, checkDirectLink, planParts, recommendedPartSize, sha1OfFile, type PartPlan } from "./plan";

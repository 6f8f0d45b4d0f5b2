/**
 * Exports as legal-hold teams get them, header rows as the systems write them (see
 * provider/custodians/presets.ts for which are confirmed and which assumed), with invented
 * people. Each has the rows that make exports hard: a guest or service account without a mail
 * address, a room or a worker with neither email nor principal name, a repeated row.
 */

/** Joins rows with CRLF (as the Windows tools write them) and puts a byte-order mark first when asked. */
export function csvFile(rows: string[], opts: { bom?: boolean } = {}): string {
  return (opts.bom ? "\uFEFF" : "") + rows.join("\r\n") + "\r\n";
}

/** Entra admin center "Download users", the layout of a file seen in a 2021 public write-up. */
export const ENTRA_HEADER =
  "userPrincipalName,displayName,surname,mail,givenName,id,userType,jobTitle,department,accountEnabled,usageLocation,streetAddress,state,country,officeLocation,city,postalCode,telephoneNumber,mobilePhone,alternateEmailAddress,ageGroup,consentProvidedForMinor,legalAgeGroupClassification,companyName,creationType,directorySynced,invitationState,identityIssuer,createdDateTime";

/** The same download as Microsoft's documentation lists its attributes (an older layout). */
export const ENTRA_DOCUMENTED_HEADER =
  "userPrincipalName,displayName,surname,mail,givenName,objectId,userType,jobTitle,department,accountEnabled,usageLocation,streetAddress,state,country,physicalDeliveryOfficeName,city,postalCode,telephoneNumber,mobile,authenticationPhoneNumber,authenticationAlternativePhoneNumber,authenticationEmail,alternateEmailAddress,ageGroup,consentProvidedForMinor,legalAgeGroupClassification";

/** An Entra download: two employees, a guest without mail (principal name only), an external contractor. */
export const ENTRA_EXPORT = csvFile(
  [
    ENTRA_HEADER,
    "ada@northwind.example,Ada Lovelace,Lovelace,Ada.Lovelace@northwind.example,Ada,6f1c0d2e-0000-4000-8000-000000000001,Member,Litigation Support Manager,Legal,True,GB,,,,Legal 4th floor,London,,+44 20 7946 0001,+44 7700 900001,,,,,Northwind Legal,,True,,northwind.example,3/14/2019 9:12:44 AM",
    "alan@northwind.example,Alan Turing,Turing,alan.turing@northwind.example,Alan,6f1c0d2e-0000-4000-8000-000000000002,Member,Reviewer,Legal,True,GB,,,,,Manchester,,,,,,,,Northwind Legal,,True,,northwind.example,5/2/2020 4:01:10 PM",
    "guest_contoso.example#EXT#@northwind.onmicrosoft.com,Guest Auditor,,,,6f1c0d2e-0000-4000-8000-000000000003,Guest,,,True,,,,,,,,,,,,,,,Invitation,,Accepted,ExternalAzureAD,8/19/2021 1:25:31 PM",
    'carol@northwind.example,"Custodian, Carol",Custodian,carol@northwind.example,Carol,6f1c0d2e-0000-4000-8000-000000000004,Member,Records Clerk,Records,True,US,,,,,New York,,,,,,,,Northwind Legal,,True,,northwind.example,1/9/2022 10:00:00 AM',
  ],
  { bom: true },
);

/** Microsoft 365 admin center "Export users" (labels assumed, see presets.ts): no mail column at all. */
export const M365_HEADER =
  "Block credential,City,Country/Region,Department,DirSyncEnabled,Display name,Fax,First name,Last dirsync time,Last name,Last password change time,License assignment detail,Licenses,Mobile Phone,Oath token metadata,Object Id,Office,Password never expires,Phone number,Postal code,Preferred data location,Preferred language,Proxy addresses,Release track,Soft deletion time stamp,State,Street address,Strong password required,Title,Usage location,User principal name,When created";

/** A Microsoft 365 export of three people: every row has a principal name, none an email column. */
export const M365_EXPORT = csvFile([
  M365_HEADER,
  "False,London,United Kingdom,Legal,True,Ada Lovelace,,Ada,,Lovelace,,,northwind:ENTERPRISEPACK,+44 7700 900001,,6f1c0d2e-1,Legal 4th floor,False,+44 20 7946 0001,,EUR,en-GB,SMTP:ada@northwind.example,,,,,True,Litigation Support Manager,GB,ada@northwind.example,3/14/2019 9:12:44 AM",
  "False,Manchester,United Kingdom,Legal,True,Alan Turing,,Alan,,Turing,,,northwind:ENTERPRISEPACK,,,6f1c0d2e-2,Legal 2nd floor,False,,,EUR,en-GB,SMTP:alan@northwind.example,,,,,True,Reviewer,GB,alan@northwind.example,5/2/2020 4:01:10 PM",
  "False,New York,United States,Records,True,Carol Custodian,,Carol,,Custodian,,,northwind:ENTERPRISEPACK,,,6f1c0d2e-4,Records,False,,,NAM,en-US,SMTP:carol@northwind.example,,,,,True,Records Clerk,US,carol@northwind.example,1/9/2022 10:00:00 AM",
]);

/** Google Workspace Admin console "Download users" (confirmed header row). */
export const GOOGLE_HEADER =
  "First Name [Required],Last Name [Required],Email Address [Required],Password [Required],Password Hash Function [UPLOAD ONLY],Org Unit Path [Required],New Primary Email [UPLOAD ONLY],Status [READ ONLY],Last Sign In [READ ONLY],Recovery Email,Home Secondary Email,Work Secondary Email,Recovery Phone [MUST BE IN THE E.164 FORMAT],Work Phone,Home Phone,Mobile Phone,Work Address,Home Address,Employee ID,Employee Type,Employee Title,Manager Email,Department,Cost Center,2sv Enrolled [READ ONLY],2sv Enforced [READ ONLY],Building ID,Floor Name,Floor Section,Email Usage [READ ONLY],Drive Usage [READ ONLY],Total Storage [READ ONLY],Change Password at Next Sign-In,New Status [UPLOAD ONLY]";

/** A Google download: two people, the same person twice (an export joined from two OUs). */
export const GOOGLE_EXPORT = csvFile([
  GOOGLE_HEADER,
  "Grace,Hopper,grace@northwind.example,****,,/Legal,,Active,2026/05/01 09:00:00,grace.personal@example.com,,grace.h@northwind.example,,+1 212 555 0101,,+1 917 555 0101,,,E1002,Full time,Director of Legal Operations,ada@northwind.example,Legal,CC-100,True,False,NYC-1,12,East,1.2GB,3.4GB,4.6GB,False,",
  "Edsger,Dijkstra,edsger@northwind.example,****,,/Compliance,,Active,2026/05/02 09:00:00,,,,,+31 20 555 0102,,,,,E1006,Contractor,Compliance Manager,grace@northwind.example,Compliance,CC-200,False,False,AMS-1,3,North,0.2GB,0.1GB,0.3GB,False,",
  "Grace,Hopper,grace@northwind.example,****,,/Legal,,Active,2026/05/01 09:00:00,grace.personal@example.com,,grace.h@northwind.example,,+1 212 555 0101,,+1 917 555 0101,,,E1002,Full time,Director of Legal Operations,ada@northwind.example,Legal,CC-100,True,False,NYC-1,12,East,1.2GB,3.4GB,4.6GB,False,",
]);

/** Okta, in the attribute names of Okta's CSV template (assumed for exports). */
export const OKTA_HEADER =
  "login,firstName,lastName,middleName,honorificPrefix,honorificSuffix,email,title,displayName,nickName,profileUrl,secondEmail,mobilePhone,primaryPhone,streetAddress,city,state,zipCode,countryCode,postalAddress,preferredLanguage,locale,timezone,userType,employeeNumber,costCenter,organization,division,department,managerId,manager";

/** An Okta export of two people. */
export const OKTA_EXPORT = csvFile([
  OKTA_HEADER,
  "margaret@northwind.example,Margaret,Hamilton,Heafield,,,margaret@northwind.example,eDiscovery Engineer,Margaret Hamilton,,,,+1 617 555 0107,+1 617 555 0100,,Boston,MA,02110,US,,en-US,en_US,America/New_York,Employee,1007,CC-300,Northwind Legal,Legal,eDiscovery,1002,Grace Hopper",
  "ken@northwind.example,Ken,Thompson,,,,ken@northwind.example,Analytics Lead,Ken Thompson,,,,,,,Murray Hill,NJ,07974,US,,en-US,en_US,America/New_York,Employee,1010,CC-300,Northwind Legal,Analytics,Analytics,1002,Grace Hopper",
]);

/** A Workday worker report with delivered field labels (assumed), dates as a US spreadsheet writes them. */
export const WORKDAY_HEADER =
  "Employee ID,Worker,Legal Name - First Name,Legal Name - Last Name,Business Title,Supervisory Organization,Location,Manager,Worker Type,Hire Date,Termination Date,Email - Primary Work,Phone - Primary Work,Company";

/** A Workday report: two workers, one on leave without a work address (left out), one who has left. */
export const WORKDAY_EXPORT = csvFile([
  WORKDAY_HEADER,
  "1005,Frances Allen,Frances,Allen,Legal Hold Coordinator,Legal Operations (Grace Hopper),New York,Grace Hopper,Employee,3/1/2015,,frances@northwind.example,+1 212 555 0105,Northwind Legal",
  "1004,Barbara Liskov,Barbara,Liskov,Investigations Lead,Investigations (Grace Hopper),Boston,Grace Hopper,Employee,09/15/2012,12/31/2025,barbara@northwind.example,,Northwind Legal",
  "2001,Temp Worker (On Leave),Temp,Worker,Document Reviewer,Review Pool (Ada Lovelace),Remote,Ada Lovelace,Contingent Worker,1/6/2026,,,,Northwind Legal",
]);
